import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { uploadFile } from './helpers/jobs.ts';
import { sharedPath } from '../support/shared.ts';
import { startWorkers, type Workers } from '../src/worker/start.ts';
import { findJob } from '../src/store/jobs.ts';
import { PROGRESS_PHASES } from '../src/domain/vocabulary.ts';

interface Sample {
  at: number;
  status: string;
  progress: number;
  phase: string | null;
}

/**
 * The progress a client sees during a real separation (docs/api-compat.md, "Progress"): monotonic,
 * phases in order, moving at least every max(3 s, 15 % of the running time), and 100 only once
 * the outputs are there.
 */
describe('progress of a real separation', () => {
  let s: TestServer;
  let workers: Workers;
  let user: { id: string; key: string };
  let clip: string;

  beforeAll(async () => {
    s = await startTestServer('sqlite', {
      STEMFORGE_MODELS_DIR: sharedPath('models'),
      RATE_LIMIT_PER_MINUTE: '100000',
    });
    workers = await startWorkers(s.rt);
    user = await s.newAccount(300);
    // 36 s: six 7.8 s segments at FAST, so there are segment checkpoints to creep between (with three,
    // a quick machine finished in 7.8 s and a 100 ms poll saw 14 distinct values).
    clip = join(s.dataDir, 'six-times.wav');
    const mix = sharedPath('audio', 'musdb-falcon69', 'mixture.wav');
    execFileSync('ffmpeg', [
      '-v',
      'error',
      ...Array.from({ length: 6 }, () => ['-i', mix]).flat(),
      '-filter_complex',
      'concat=n=6:v=0:a=1',
      clip,
    ]);
  });
  afterAll(async () => {
    await workers?.stop();
    await s?.close();
  });

  test('FOUR_STEMS FAST: monotonic, phases in order, never standing still long, 100 only when done', async () => {
    const uploadKey = await uploadFile(s, user.key, clip, 'six.wav');
    const created: any = await (
      await s.api('/v1/jobs', {
        key: user.key,
        method: 'POST',
        json: { uploadKey, outputType: 'FOUR_STEMS', quality: 'FAST' },
      })
    ).json();
    const samples: Sample[] = [];
    const deadline = Date.now() + 280_000;
    for (;;) {
      const row = (await findJob(s.rt.db, created.id))!;
      samples.push({ at: Date.now(), status: row.status, progress: row.progress, phase: row.progress_phase });
      if (row.status === 'COMPLETED' || row.status === 'FAILED' || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const last = samples.at(-1)!;
    expect(last).toMatchObject({ status: 'COMPLETED', progress: 100, phase: 'completed' });

    for (let i = 1; i < samples.length; i++)
      expect(samples[i]!.progress).toBeGreaterThanOrEqual(samples[i - 1]!.progress);
    // 100 is never shown before the job is COMPLETED with its outputs.
    expect(samples.filter((x) => x.progress === 100).every((x) => x.status === 'COMPLETED')).toBe(true);

    const seen = [...new Set(samples.map((x) => x.phase).filter((p): p is string => p !== null))];
    const order = seen.map((p) => PROGRESS_PHASES.indexOf(p as (typeof PROGRESS_PHASES)[number]));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    // Uploading and analysing are short: a 100 ms poll may miss them.
    expect(seen).toEqual(expect.arrayContaining(['queued', 'loading_model', 'separating', 'completed']));

    const running = samples.filter((x) => x.status === 'PROCESSING');
    const runMs = running.at(-1)!.at - running[0]!.at;
    let still = 0;
    let since = running[0]!;
    for (const x of running) {
      if (x.progress !== since.progress) since = x;
      still = Math.max(still, x.at - since.at);
    }
    const distinct = new Set(running.map((x) => x.progress)).size;
    console.log(`progress: ${distinct} values over ${runMs} ms; longest standstill ${still} ms`);
    expect(distinct).toBeGreaterThanOrEqual(15);
    expect(still).toBeLessThanOrEqual(Math.max(3000, 0.15 * runMs));
  }, 300_000);
});
