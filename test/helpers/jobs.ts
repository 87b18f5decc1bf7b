import { readFile } from 'node:fs/promises';
import type { TestServer } from './server.ts';

/** A client of a server started outside this process (a child process, a container), as the job helpers take it. */
export function remoteClient(base: string): Pick<TestServer, 'api'> {
  return {
    api(path: string, init: RequestInit & { key?: string; json?: unknown } = {}) {
      const headers = new Headers(init.headers);
      if (init.key) headers.set('authorization', `Bearer ${init.key}`);
      if (init.json !== undefined) headers.set('content-type', 'application/json');
      const body = init.json !== undefined ? JSON.stringify(init.json) : init.body;
      return fetch(path.startsWith('http') ? path : `${base}${path}`, { ...init, headers, body } as RequestInit);
    },
  };
}

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

/**
 * Uploads the shared MUSDB clip and runs it as a FOUR_STEMS FAST job to its end (the smoke test of
 * a fresh install and of the image); returns the finished job as GET /v1/jobs/{id} shows it.
 */
export async function runFastFourStems(s: Pick<TestServer, 'api'>, key: string, clipPath: string): Promise<any> {
  const uploadKey = await uploadFile(s, key, clipPath, 'falcon.wav');
  const created = await s.api('/v1/jobs', {
    method: 'POST',
    key,
    json: { uploadKey, outputType: 'FOUR_STEMS', quality: 'FAST' },
  });
  if (created.status !== 201) throw new Error(`job creation answered ${created.status}: ${await created.text()}`);
  const { id } = (await created.json()) as { id: string };
  return (await waitForJob(s, key, `/v1/jobs/${id}`, 600_000)).job;
}
