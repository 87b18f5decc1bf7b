import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sharedPath } from '../support/shared.ts';
import { trimClip } from './helpers/denoise-clip.ts';
import { startScaleOut, type ScaleOut } from './helpers/scale-out.ts';

/**
 * The scale-out deployment, for real: PostgreSQL, BullMQ on Redis, S3-compatible storage (s3rver on
 * loopback), and separate API (`serve --no-workers`) and worker (`worker`) processes.
 */
describe('scale-out deployment: API and worker processes over PostgreSQL, Redis and S3', () => {
  let d: ScaleOut;
  beforeAll(async () => {
    d = await startScaleOut('scaleout');
  });
  afterAll(async () => {
    await d?.close();
  });

  const call = (path: string, init: RequestInit & { json?: unknown } = {}) =>
    fetch(`${d.base}${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${d.key()}`,
        ...(init.json ? { 'content-type': 'application/json' } : {}),
      },
      body: init.json ? JSON.stringify(init.json) : init.body,
    });
  const createDenoiseJob = async () => {
    const clip = await trimClip(
      sharedPath('audio', 'denoise', 'noisy_snr0.wav'),
      join(d.apiData, `noisy-${randomBytes(3).toString('hex')}.wav`),
      6,
    );
    const form = new FormData();
    form.append('file', new Blob([await readFile(clip)]), 'interview.wav');
    const uploaded: any = await (await call('/v1/files/upload', { method: 'POST', body: form })).json();
    return call('/v1/denoise-jobs', {
      method: 'POST',
      json: {
        inputFileName: 'interview.wav',
        inputFilePath: uploaded.uploadKey,
        inputFileSize: uploaded.fileSizeBytes,
        durationSeconds: 6,
      },
    });
  };

  test('a job created on the API process is separated by the worker process and downloads from S3', async () => {
    expect(d.key()).toBeTruthy();
    const falcon = await readFile(sharedPath('audio', 'musdb-falcon69', 'mixture.wav'));
    const grant: any = await (
      await call('/v1/upload', { method: 'POST', json: { filename: 'falcon.wav', fileSizeBytes: falcon.length } })
    ).json();
    // Issue 30: the file goes straight to the bucket (its size signed, issue 41); the worker process measures it.
    expect(grant.uploadUrl.startsWith(`${d.s3.endpoint}/${d.s3.bucket}/uploads/`)).toBe(true);
    const put = await fetch(grant.uploadUrl, {
      method: 'PUT',
      headers: { 'content-type': grant.contentType },
      body: falcon,
    });
    expect(put.status).toBe(200);
    const created: any = await (
      await call('/v1/jobs', {
        method: 'POST',
        json: { uploadKey: grant.uploadKey, outputType: 'VOCALS', quality: 'FAST', outputFormat: 'WAV' },
      })
    ).json();
    expect(created.status).toBe('PENDING');
    let job: any;
    for (let i = 0; i < 600; i++) {
      job = await (await call(`/v1/jobs/${created.id}`)).json();
      if (job.status === 'COMPLETED' || job.status === 'FAILED') break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(job.errorMessage).toBeNull();
    expect(job.status).toBe('COMPLETED');
    expect(job.input.durationSeconds).toBeGreaterThan(0);
    expect(job.creditsCharged).toBe(job.input.durationSeconds);
    expect(job.outputs.vocals.url.startsWith(d.s3.endpoint)).toBe(true);
    const res = await fetch(job.outputs.vocals.url);
    expect(res.status).toBe(200);
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.subarray(0, 4).toString()).toBe('RIFF');
    expect(bytes.length).toBeGreaterThan(6 * 44_100 * 4 * 0.9);
  });

  test('models come from the live workers: voice cleaning is accepted (the worker has dfn3, the API host nothing), SIX_STEMS is refused', async () => {
    const res = await createDenoiseJob();
    expect(res.status).toBe(200);
    const created: any = await res.json();
    let job: any;
    for (let i = 0; i < 240; i++) {
      job = await (await call(`/v1/denoise-jobs/${created.jobId}`)).json();
      if (job.status === 'COMPLETED' || job.status === 'FAILED') break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(job.status).toBe('COMPLETED');

    const grant: any = await (await call('/v1/upload', { method: 'POST', json: { filename: 'falcon.wav' } })).json();
    const six = await call('/v1/jobs', {
      method: 'POST',
      json: { uploadKey: grant.uploadKey, outputType: 'SIX_STEMS', quality: 'BEST' },
    });
    expect(six.status).toBe(400);
    const { error }: any = await six.json();
    expect(error.code).toBe('MODEL_NOT_INSTALLED');
    expect(error.message).toContain('not installed on any running worker');
  });

  test('a stopped worker takes its models with it: voice cleaning is then refused', async () => {
    await d.worker.stop();
    const res = await createDenoiseJob();
    expect(res.status).toBe(400);
    const { error }: any = await res.json();
    expect(error.code).toBe('MODEL_NOT_INSTALLED');
    expect(error.message).toContain("'dfn3'");
  });
});
