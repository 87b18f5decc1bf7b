import { readFile } from 'node:fs/promises';
import type { TestServer } from './server.ts';

/** Uploads a local file through POST /upload + the signed PUT; returns the upload key. */
export async function uploadFile(
  s: Pick<TestServer, 'api'>,
  key: string,
  path: string,
  filename: string,
): Promise<string> {
  const grant: any = await (await s.api('/v1/upload', { key, method: 'POST', json: { filename } })).json();
  const res = await fetch(grant.uploadUrl, {
    method: 'PUT',
    headers: { 'content-type': grant.contentType },
    body: await readFile(path),
  });
  if (res.status !== 200) throw new Error(`upload failed: ${res.status} ${await res.text()}`);
  return grant.uploadKey;
}

/** Polls a job until it reaches a terminal state, recording every progress value seen. */
export async function waitForJob(
  s: Pick<TestServer, 'api'>,
  key: string,
  path: string,
  timeoutMs = 300_000,
): Promise<{ job: any; progress: number[] }> {
  const progress: number[] = [];
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const job: any = await (await s.api(path, { key })).json();
    progress.push(job.progress);
    if (['COMPLETED', 'FAILED', 'EXPIRED'].includes(job.status)) return { job, progress };
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`job ${path} did not finish in ${timeoutMs} ms`);
}
