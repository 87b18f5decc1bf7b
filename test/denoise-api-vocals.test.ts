import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { sharedPath } from '../support/shared.ts';
import { uploadFile, waitForJob } from './helpers/jobs.ts';
import { startWorkers, type Workers } from '../src/worker/start.ts';
import { probeAudio } from '../src/audio/probe.ts';

/** `denoiseVocals` on a stem job: real HTDemucs, then the real DeepFilterNet3 on the vocal stem. */
describe('stem job with denoiseVocals (real separation and denoising)', () => {
  let s: TestServer;
  let workers: Workers;

  beforeAll(async () => {
    s = await startTestServer('sqlite', {
      STEMFORGE_MODELS_DIR: sharedPath('models'),
      RATE_LIMIT_PER_MINUTE: '100000',
    });
    workers = await startWorkers(s.rt);
  });
  afterAll(async () => {
    await workers?.stop();
    await s?.close();
  });

  test('VOCALS with denoiseVocals completes with a cleaned vocal stem of the input length', async () => {
    const user = await s.newAccount(300);
    const upload = await uploadFile(s, user.key, sharedPath('audio', 'musdb-falcon69', 'mixture.wav'), 'Falcon 69.wav');
    const created: any = await (
      await s.api('/v1/jobs', {
        key: user.key,
        method: 'POST',
        json: { uploadKey: upload, outputType: 'VOCALS', quality: 'FAST', outputFormat: 'WAV', denoiseVocals: true },
      })
    ).json();
    const { job } = await waitForJob(s, user.key, `/v1/jobs/${created.id}`, 280_000);
    expect(job.errorMessage).toBeNull();
    expect(job.status).toBe('COMPLETED');
    expect(Object.keys(job.outputs)).toEqual(['vocals']);
    const res = await fetch(job.outputs.vocals.url);
    expect(res.status).toBe(200);
    const path = join(s.dataDir, 'vocals.wav');
    await writeFile(path, Buffer.from(await res.arrayBuffer()));
    const probe = await probeAudio(path);
    expect(Math.abs(probe.durationSeconds - 6.01)).toBeLessThan(0.1);
    // HTDemucs writes 44.1 kHz; cleaning runs at DeepFilterNet3's 48 kHz and the stem comes back
    // at its own 44.1 kHz (the cleaning itself at 44.1 kHz stereo: denoise-engine.test.ts).
    expect(probe.sampleRate).toBe(44_100);
    expect(probe.channels).toBe(2);
  }, 300_000);
});
