import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { pendingJobRow } from './helpers/job-row.ts';
import { insertJob, type JobRow } from '../src/store/jobs.ts';
import { estimateSeconds, fitPace, jobSeconds, paces } from '../src/jobs/estimate.ts';
import { runningFacts } from '../src/jobs/present/running-facts.ts';
import { capabilities } from '../src/jobs/capabilities.ts';

const fast = (quality: string) =>
  JSON.stringify({ outputType: 'VOCALS', quality, outputFormat: 'MP3', denoiseVocals: false, model: 'htdemucs' });
const input = (seconds: number) =>
  JSON.stringify({ fileName: 'a.wav', billedSeconds: Math.ceil(seconds), fileSizeBytes: 1000 });

/**
 * Estimates from this deployment's measured pace per tier and length (issue 43): within 30 % of a
 * job's real time once a job of its tier has run, the tiers apart, and queue times that add up.
 * Real SQLite; finished jobs are rows with the times a worker wrote.
 */
describe('estimates from the measured pace per tier and length', () => {
  let s: TestServer;
  let account = '';
  const at = (msAgo: number) => new Date(Date.now() - msAgo).toISOString();
  const finished = async (quality: string, audio: number, took: number) =>
    insertJob(
      s.rt.db,
      pendingJobRow(account, {
        status: 'COMPLETED',
        options_json: fast(quality),
        input_json: input(audio),
        duration_seconds: audio,
        started_at: at(took * 1000 + 5000),
        completed_at: at(5000),
      }),
    );

  beforeAll(async () => {
    s = await startTestServer('sqlite', { WORKER_CONCURRENCY: '1' });
    account = (await s.newAccount(10_000)).id;
  });
  afterAll(async () => s?.close());

  test('a tier with a fixed part per job: the old per-second rate was off 2-3x, the fitted line is within 30 %', () => {
    // What the walk saw: a short clip is mostly model loading; a long song is mostly separation.
    const truth = (audio: number) => 20 + 0.25 * audio;
    const pace = fitPace(
      'FAST',
      [6, 30, 120, 240].map((audio) => ({ audio, seconds: truth(audio) })),
    );
    for (const audio of [10, 60, 200]) {
      expect(Math.abs(jobSeconds(pace, audio) / truth(audio) - 1)).toBeLessThan(0.3);
    }
    // The old rule, one average rate per audio second, on the same history.
    const rate = [6, 30, 120, 240].reduce((a, x) => a + truth(x) / x, 0) / 4;
    expect((rate * 200) / truth(200)).toBeGreaterThan(2);
  });

  test('once one job of a tier has run, a job of its length is estimated as it ran; other tiers keep theirs', async () => {
    await finished('FAST', 30, 47);
    const all = await paces(s.rt.db);
    expect(all.get('FAST')!.measuredJobs).toBe(1);
    expect(jobSeconds(all.get('FAST')!, 30)).toBeCloseTo(47, 0);
    expect(jobSeconds(all.get('FAST')!, 40) / 47).toBeLessThan(1.3);
    expect(all.get('BEST')!.measuredJobs).toBe(0);
    const caps = await capabilities(s.rt);
    expect(caps.pace.FAST!.measuredJobs).toBe(1);
  });

  test('queue: a job behind another says more time left than it; a new job is estimated behind them all', async () => {
    const running = pendingJobRow(account, {
      status: 'PROCESSING',
      progress: 50,
      options_json: fast('FAST'),
      input_json: input(30),
      duration_seconds: 30,
      started_at: at(20_000),
    });
    await insertJob(s.rt.db, running);
    const queued: JobRow[] = [];
    for (const [i, audio] of [60, 10, 30].entries()) {
      const row = pendingJobRow(account, {
        options_json: fast(i === 1 ? 'BEST' : 'FAST'),
        input_json: input(audio),
        duration_seconds: audio,
        created_at: at(3000 - i * 1000),
      });
      await insertJob(s.rt.db, row);
      queued.push(row);
    }
    const ahead = await runningFacts(s.rt, running);
    const facts = await Promise.all(queued.map((r) => runningFacts(s.rt, r)));
    expect(facts.map((f) => f.queuePosition)).toEqual([1, 2, 3]);
    const times = [ahead.secondsLeft!, ...facts.map((f) => f.secondsLeft!)];
    for (let i = 1; i < times.length; i++) expect(times[i]).toBeGreaterThan(times[i - 1]!);
    expect(await estimateSeconds(s.rt, 30, 'FAST')).toBeGreaterThan(times.at(-1)!);
  });
});
