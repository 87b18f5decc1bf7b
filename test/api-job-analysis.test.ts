import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobAnalysis } from '../src/contract/analysis.ts';
import { analysisKey } from '../src/jobs/outputs/job-analysis.ts';
import { startWorkers, type Workers } from '../src/worker/start.ts';
import { sweepExpired } from '../src/worker/retention.ts';
import { sharedPath } from '../support/shared.ts';
import { commitFinishedJob } from './helpers/finished-job.ts';
import { uploadFile, waitForJob } from './helpers/jobs.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

/**
 * GET /v1/jobs/{id}/analysis over HTTP, on a job the real worker separated and analysed (the
 * musdb excerpt, real HTDemucs): 401 without a key, 404 for an unknown id or another account's
 * job, 409 before the job completed, 200 with the stored beats and chords, 410 after retention,
 * and an honest answer (tempo and key, the rest null) for a job finished before beats existed.
 */
describe('GET /v1/jobs/{id}/analysis', () => {
  let s: TestServer;
  let workers: Workers | undefined;
  let user: { id: string; key: string };
  let other: { id: string; key: string };
  let jobId: string;

  beforeAll(async () => {
    s = await startTestServer('sqlite', {
      STEMFORGE_MODELS_DIR: sharedPath('models'),
      WORKER_CONCURRENCY: '1',
      RATE_LIMIT_PER_MINUTE: '100000',
    });
    user = await s.newAccount(300);
    other = await s.newAccount(300);
    const upload = await uploadFile(s, user.key, sharedPath('audio', 'musdb-falcon69', 'mixture.wav'), 'Falcon 69.wav');
    const res = await s.api('/v1/jobs', {
      key: user.key,
      method: 'POST',
      json: { uploadKey: upload, outputType: 'FOUR_STEMS', outputFormat: 'MP3', quality: 'FAST' },
    });
    jobId = ((await res.json()) as { id: string }).id;
  }, 60_000);
  afterAll(async () => {
    await workers?.stop();
    await s?.close();
  });

  it('answers 401 without an API key', async () => {
    const res = await s.api(`/v1/jobs/${jobId}/analysis`);
    expect(res.status).toBe(401);
  });

  it('answers 409 JOB_NOT_COMPLETED while the job has not run', async () => {
    const res = await s.api(`/v1/jobs/${jobId}/analysis`, { key: user.key });
    expect(res.status).toBe(409);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('JOB_NOT_COMPLETED');
  });

  it("answers 404 JOB_NOT_FOUND for an unknown id and for another account's job", async () => {
    for (const [path, key] of [
      ['/v1/jobs/job_doesnotexist/analysis', user.key],
      [`/v1/jobs/${jobId}/analysis`, other.key],
    ] as const) {
      const res = await s.api(path, { key });
      expect(res.status).toBe(404);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('JOB_NOT_FOUND');
    }
  });

  it('gives a finished job its tempo, key, beats, downbeats and chords, under /v1 and /api/v1', async () => {
    workers = await startWorkers(s.rt);
    const { job } = await waitForJob(s, user.key, `/v1/jobs/${jobId}`);
    expect(job.status).toBe('COMPLETED');
    for (const prefix of ['/v1', '/api/v1']) {
      const res = await s.api(`${prefix}/jobs/${jobId}/analysis`, { key: user.key });
      expect(res.status).toBe(200);
      const body = JobAnalysis.parse(await res.json());
      expect(body.jobId).toBe(jobId);
      // the job's own audioMetadata, unchanged, and the detail beside it
      expect(body.bpm).toBe(job.audioMetadata.bpm);
      expect(body.key).toBe(job.audioMetadata.key);
      expect(Object.keys(job.audioMetadata).sort()).toEqual(['bpm', 'key', 'keyConfidence', 'tempoConfidence']);
      const beats = body.beats!;
      expect(beats.length).toBeGreaterThanOrEqual(8);
      for (let i = 1; i < beats.length; i++) expect(beats[i]!).toBeGreaterThan(beats[i - 1]!);
      for (const t of beats) expect(Math.round(t * 1000) / 1000).toBe(t);
      // a beat every 60/bpm seconds, give or take the tracker's following of the music
      const gaps = beats.slice(1).map((b, i) => b - beats[i]!);
      const median = gaps.sort((a, b) => a - b)[gaps.length >> 1]!;
      expect(Math.abs(median / (60 / body.bpm!) - 1)).toBeLessThan(0.1);
      expect(body.downbeats!.length).toBeGreaterThan(0);
      for (const d of body.downbeats!) expect(beats).toContain(d);
      expect([3, 4]).toContain(body.beatsPerBar);
      const chords = body.chords!;
      expect(chords[0]!.start).toBe(0);
      for (let i = 1; i < chords.length; i++) expect(chords[i]!.start).toBe(chords[i - 1]!.end);
    }
  }, 600_000);

  it('answers tempo and key with the rest null for a job finished before beats were stored', async () => {
    const { job } = await commitFinishedJob(s.rt, user.id, {
      outcome: 'COMPLETED',
      outputs: { vocals: Buffer.from('x') },
    });
    await s.rt.db
      .updateTable('jobs')
      .set({ audio_metadata_json: JSON.stringify({ bpm: 120, key: 'C major' }) })
      .where('id', '=', job.id)
      .execute();
    const res = await s.api(`/v1/jobs/${job.id}/analysis`, { key: user.key });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      jobId: job.id,
      bpm: 120,
      tempoConfidence: null,
      key: 'C major',
      keyConfidence: null,
      beatsPerBar: null,
      beats: null,
      downbeats: null,
      beatConfidence: null,
      chords: null,
    });
  });

  it('answers 404 for a denoise job, which has no analysis', async () => {
    const { job } = await commitFinishedJob(s.rt, user.id, { kind: 'denoise', outcome: 'COMPLETED' });
    const res = await s.api(`/v1/jobs/${job.id}/analysis`, { key: user.key });
    expect(res.status).toBe(404);
  });

  it('answers 410 OUTPUT_EXPIRED once retention removed the outputs, and the detail went with them', async () => {
    expect(await s.rt.blobs.stat(analysisKey(jobId))).not.toBeNull();
    await sweepExpired(s.rt, new Date(Date.now() + 48 * 3600_000));
    expect(await s.rt.blobs.stat(analysisKey(jobId))).toBeNull();
    const res = await s.api(`/v1/jobs/${jobId}/analysis`, { key: user.key });
    expect(res.status).toBe(410);
  });

  it('is in the OpenAPI document with its errors', async () => {
    const doc = (await (await s.api('/v1/openapi.json')).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    const op = doc.paths['/v1/jobs/{id}/analysis']?.get;
    expect(op).toBeDefined();
    expect(Object.keys(op!.responses)).toEqual(expect.arrayContaining(['200', '401', '404', '409', '410']));
  });
});
