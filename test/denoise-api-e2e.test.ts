import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { sharedPath } from '../support/shared.ts';
import { trimClip } from './helpers/denoise-clip.ts';
import { waitForJob } from './helpers/jobs.ts';
import { startWorkers, type Workers } from '../src/worker/start.ts';
import { getBalanceSeconds } from '../src/store/credits.ts';
import { probeAudio } from '../src/audio/probe.ts';
import { decodeToPlanar } from '../support/decode-planar.ts';
import { siSdr } from '../support/si-sdr.ts';
import { sweepExpired } from '../src/worker/retention.ts';

/**
 * The whole voice-cleaning path with the real DeepFilterNet3 (one run): multipart upload, job,
 * polling, download through the site route's redirect, the audio checked against the clean
 * reference, then retention.
 */
describe('denoise jobs end to end (real DeepFilterNet3)', () => {
  let s: TestServer;
  let workers: Workers;
  let user: { id: string; key: string };
  let noisyPath: string;
  let cleanPath: string;

  beforeAll(async () => {
    s = await startTestServer('sqlite', {
      STEMFORGE_MODELS_DIR: sharedPath('models'),
      RATE_LIMIT_PER_MINUTE: '100000',
    });
    workers = await startWorkers(s.rt);
    user = await s.newAccount(300);
    // noisy_snr0.wav is the clean file plus noise at 0 dB, sample-aligned; 6 s keeps the run short.
    noisyPath = await trimClip(sharedPath('audio', 'denoise', 'noisy_snr0.wav'), join(s.dataDir, 'noisy6.wav'), 6);
    cleanPath = await trimClip(
      sharedPath('audio', 'denoise', 'clean_freesound_33711.wav'),
      join(s.dataDir, 'clean6.wav'),
      6,
    );
  });
  afterAll(async () => {
    await workers?.stop();
    await s?.close();
  });

  test('upload, create, complete, download the cleaned 48 kHz audio, then expire', async () => {
    const form = new FormData();
    form.append('file', new Blob([await readFile(noisyPath)]), 'Street interview.wav');
    const uploaded: any = await (await s.api('/v1/files/upload', { key: user.key, method: 'POST', body: form })).json();
    const created: any = await (
      await s.api('/v1/denoise-jobs', {
        key: user.key,
        method: 'POST',
        json: {
          inputFileName: 'Street interview.wav',
          inputFilePath: uploaded.uploadKey,
          inputFileSize: uploaded.fileSizeBytes,
          durationSeconds: 6,
          outputFormat: 'WAV',
        },
      })
    ).json();
    expect(created).toMatchObject({ status: 'PENDING', outputFormat: 'WAV', creditsRequired: 6 });

    const { job, progress } = await waitForJob(s, user.key, `/v1/denoise-jobs/${created.jobId}`, 240_000);
    expect(job.errorMessage).toBeNull();
    expect(job.status).toBe('COMPLETED');
    expect(job.progress).toBe(100);
    for (let i = 1; i < progress.length; i++) expect(progress[i]).toBeGreaterThanOrEqual(progress[i - 1]!);
    expect(job.creditsCharged).toBe(6);
    expect(await getBalanceSeconds(s.rt.db, user.id)).toBe(300 - 6);
    expect(job.outputFilePath).toBe(`jobs/${created.jobId}/denoised.wav`);
    expect(job.downloadUrl).toBe(`${s.base}/api/files/download-denoise/${created.jobId}`);
    expect(job.completedAt).toBeTruthy();

    const redirect = await s.api(job.downloadUrl, { key: user.key, redirect: 'manual' });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('cache-control')).toBe('no-store');
    expect(redirect.headers.get('location')).toContain(`/v1/blobs/jobs/${created.jobId}/denoised.wav?`);

    const res = await s.api(job.downloadUrl, { key: user.key });
    expect(res.status).toBe(200);
    expect(res.redirected).toBe(true);
    expect(res.headers.get('content-type')).toBe('audio/wav');
    expect(res.headers.get('content-disposition')).toContain('Street interview-denoised.wav');
    const outPath = join(s.dataDir, 'cleaned.wav');
    await writeFile(outPath, Buffer.from(await res.arrayBuffer()));
    const probe = await probeAudio(outPath);
    expect(probe.sampleRate).toBe(48_000);
    expect(Math.abs(probe.durationSeconds - 6)).toBeLessThan(0.05);

    // It is really cleaned: SI-SDR against the clean reference rises well above the noisy input's.
    const mono = { sampleRate: 48_000, channels: 1 };
    const [clean, noisy, cleaned] = await Promise.all([
      decodeToPlanar(cleanPath, mono),
      decodeToPlanar(noisyPath, mono),
      decodeToPlanar(outPath, mono),
    ]);
    const before = siSdr(clean.channels[0]!, noisy.channels[0]!);
    const after = siSdr(clean.channels[0]!, cleaned.channels[0]!);
    expect(after - before).toBeGreaterThan(8);

    const listed: any = await (await s.api('/v1/denoise-jobs?status=COMPLETED', { key: user.key })).json();
    expect(listed.jobs.map((j: any) => j.jobId)).toEqual([created.jobId]);

    // After retention the file is gone: EXPIRED, and the download says so.
    await sweepExpired(s.rt, new Date(Date.now() + 48 * 3600_000));
    const expired: any = await (await s.api(`/v1/denoise-jobs/${created.jobId}`, { key: user.key })).json();
    expect(expired).toMatchObject({ status: 'EXPIRED', outputFilePath: null, downloadUrl: null });
    const gone = await s.api(job.downloadUrl, { key: user.key });
    expect(gone.status).toBe(410);
    expect(((await gone.json()) as any).error.code).toBe('OUTPUT_EXPIRED');
  }, 300_000);

  test('an attenuation limit reaches the engine: the result keeps more of the input', async () => {
    const form = new FormData();
    form.append('file', new Blob([await readFile(noisyPath)]), 'limited.wav');
    const uploaded: any = await (await s.api('/v1/files/upload', { key: user.key, method: 'POST', body: form })).json();
    const outputs: Float32Array[] = [];
    for (const attenuationLimitDb of [undefined, 6]) {
      const created: any = await (
        await s.api('/v1/denoise-jobs', {
          key: user.key,
          method: 'POST',
          json: {
            inputFileName: 'limited.wav',
            inputFilePath: uploaded.uploadKey,
            inputFileSize: uploaded.fileSizeBytes,
            durationSeconds: 6,
            outputFormat: 'WAV',
            attenuationLimitDb,
          },
        })
      ).json();
      const { job } = await waitForJob(s, user.key, `/v1/denoise-jobs/${created.jobId}`, 240_000);
      expect(job.status).toBe('COMPLETED');
      const res = await s.api(job.downloadUrl, { key: user.key });
      const path = join(s.dataDir, `limited-${attenuationLimitDb ?? 'none'}.wav`);
      await writeFile(path, Buffer.from(await res.arrayBuffer()));
      outputs.push((await decodeToPlanar(path, { sampleRate: 48_000, channels: 1 })).channels[0]!);
    }
    const noisy = (await decodeToPlanar(noisyPath, { sampleRate: 48_000, channels: 1 })).channels[0]!;
    // With a 6 dB limit the input is mixed back at half its amplitude: much closer to it.
    expect(siSdr(noisy, outputs[1]!)).toBeGreaterThan(siSdr(noisy, outputs[0]!) + 3);
  }, 300_000);
});
