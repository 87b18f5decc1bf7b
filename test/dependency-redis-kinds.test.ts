import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { s3Settings, startS3Server, type TestS3Server } from './helpers/s3-server.ts';
import { startTestRedis, type TestRedis } from './helpers/redis-server.ts';
import { BEHIND_LOCAL_PROXY, newDashboardUser, signedIn, type DashboardClient } from './helpers/dashboard.ts';
import { FAKE_YTDLP } from './helpers/imports.ts';
import { uploadFile } from './helpers/jobs.ts';
import { makeTone } from './helpers/audio.ts';
import { untilReady } from './helpers/outage.ts';
import { MODEL_REGISTRY } from '../src/models/registry.ts';
import { recordWorkerModels } from '../src/store/worker-models.ts';
import { listLedger } from '../src/store/credits.ts';

/**
 * Every way to create a job (stem, video, track and denoise over the API, and the dashboard's) asks
 * the queue first: with Redis stopped each answers 503 SERVICE_UNAVAILABLE and stores and holds
 * nothing; once Redis is back, each creates its job. A scale-out API process with a Redis of the
 * test's own; the video and track sites are the FAKE yt-dlp.
 */
describe('job creation of every kind with Redis away', () => {
  let redis: TestRedis;
  let s3: TestS3Server;
  let s: TestServer;
  let user: { id: string; key: string };
  let dashboard: DashboardClient;
  let uploadKey: string;

  beforeAll(async () => {
    redis = await startTestRedis();
    s3 = await startS3Server('stemforge-kinds');
    s = await startTestServer('postgres', {
      STEMFORGE_MODE: 'scale-out',
      REDIS_URL: redis.url,
      REDIS_PREFIX: `sfkinds-${randomBytes(4).toString('hex')}`,
      ...s3Settings(s3),
      STEMFORGE_SIGNING_SECRET: randomBytes(32).toString('hex'),
      YTDLP_PATH: FAKE_YTDLP,
      RATE_LIMIT_PER_MINUTE: '100000',
      ...BEHIND_LOCAL_PROXY,
    });
    // A live worker with every model, as the API sees one (the workers' records).
    const now = new Date();
    const models = MODEL_REGISTRY.map((m) => m.name);
    await recordWorkerModels(s.rt.db, 'w_kinds', models, now.toISOString(), new Date(0).toISOString());
    const person = await newDashboardUser(s, 900);
    user = { id: person.id, key: person.key };
    dashboard = await signedIn(s, person);
    uploadKey = await uploadFile(s, user.key, await makeTone(join(s.dataDir, 'voice.wav'), 6), 'voice.wav');
  }, 60_000);
  afterAll(async () => {
    await s?.close();
    await s3?.close();
    await redis?.stop();
  });

  const creations: Array<[string, () => Promise<Response>]> = [
    ['stem', () => s.api('/v1/jobs', { key: user.key, method: 'POST', json: { uploadKey, outputType: 'VOCALS' } })],
    [
      'video',
      () =>
        s.api('/v1/video-jobs', {
          key: user.key,
          method: 'POST',
          json: { videoUrl: 'https://www.youtube.com/watch?v=FalconVid01' },
        }),
    ],
    [
      'track',
      () =>
        s.api('/v1/track-jobs', {
          key: user.key,
          method: 'POST',
          json: { trackUrl: 'https://soundcloud.com/fake-artist/NoDuration0' },
        }),
    ],
    [
      'denoise',
      () =>
        s.api('/v1/denoise-jobs', {
          key: user.key,
          method: 'POST',
          json: { inputFileName: 'voice.wav', inputFilePath: uploadKey, inputFileSize: 1, durationSeconds: 6 },
        }),
    ],
    ['dashboard', () => dashboard.call('POST', '/jobs', { kind: 'stem', uploadKey, outputType: 'VOCALS' })],
  ];

  test('each answers 503 and leaves no job and no hold; each creates its job once Redis is back', async () => {
    const ledger = (await listLedger(s.rt.db, user.id)).length;
    await redis.stop();
    for (const [kind, create] of creations) {
      const res = await create();
      expect(res.status, kind).toBe(503);
      expect(res.headers.get('retry-after'), kind).toBe('5');
      expect(((await res.json()) as any).error.code, kind).toBe('SERVICE_UNAVAILABLE');
    }
    expect(await s.rt.db.selectFrom('jobs').select('id').execute()).toEqual([]);
    expect((await listLedger(s.rt.db, user.id)).length).toBe(ledger);

    await redis.start();
    await untilReady(s.base);
    for (const [kind, create] of creations) {
      const res = await create();
      expect([200, 201, 202], `${kind}: ${res.status} ${await res.clone().text()}`).toContain(res.status);
    }
    expect((await s.rt.db.selectFrom('jobs').select('kind').execute()).map((j) => j.kind).sort()).toEqual(
      ['denoise', 'stem', 'stem', 'track', 'video'].sort(),
    );
  }, 120_000);
});
