import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { freshDatabase, type TestDatabase } from './helpers/db.ts';
import { makeTone } from './helpers/audio.ts';
import { uploadFile } from './helpers/jobs.ts';
import { canonicalJson } from '../src/http/idempotency.ts';
import { grantCredits } from '../src/store/credits.ts';
import { claimIdempotencyKey, findIdempotencyKey, sweepIdempotencyKeys } from '../src/store/idempotency-keys.ts';
import { createStemJob } from '../src/jobs/create/create-stem-job.ts';
import { CreateJobRequest, JobCreated } from '../src/contract/jobs.ts';

/**
 * Idempotency-Key over real HTTP on both dialects. Two servers share one database, each with its
 * own runtime and connection pool, as two API processes would: the database decides between them.
 */
describe.each(['sqlite', 'postgres'] as const)('Idempotency-Key on %s', (dialect) => {
  let db: TestDatabase;
  let a: TestServer;
  let b: TestServer;
  let user: { id: string; key: string };
  let uploadKey: string;

  beforeAll(async () => {
    db = await freshDatabase(dialect);
    const env = { DATABASE_URL: db.url, ALLOW_PRIVATE_URLS: 'true', MIN_DURATION_SECONDS: '1' };
    a = await startTestServer('sqlite', env, {}, { dbSchema: db.schema });
    b = await startTestServer('sqlite', env, {}, { dbSchema: db.schema });
    user = await a.newAccount(600);
    uploadKey = await uploadFile(a, user.key, await makeTone(join(a.dataDir, 'tone.wav'), 3), 'tone.wav');
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await db?.destroy();
  });

  const post = (s: TestServer, path: string, json: unknown, idem?: string, key = user.key) =>
    s.api(path, { method: 'POST', key, json, headers: idem === undefined ? {} : { 'idempotency-key': idem } });
  const jobCount = async (key = user.key) =>
    ((await (await a.api('/v1/jobs', { key })).json()) as { pagination: { total: number } }).pagination.total;
  const balance = async (key = user.key) =>
    ((await (await a.api('/v1/balance', { key })).json()) as { balanceSeconds: number }).balanceSeconds;

  test('a retried POST /jobs replays the first answer and creates one job, one hold', async () => {
    const before = { jobs: await jobCount(), balance: await balance() };
    const body = { uploadKey, outputType: 'VOCALS', metadata: { order: 7 } };
    const first = await post(a, '/v1/jobs', body, 'retry-1');
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const created = (await first.json()) as { id: string; creditsRequired: number };
    // Same request with the keys in another order and other spacing: the same request.
    const again = await b.api('/v1/jobs', {
      method: 'POST',
      key: user.key,
      headers: { 'idempotency-key': 'retry-1', 'content-type': 'application/json' },
      body: `{ "metadata": {"order":7}, "outputType": "VOCALS", "uploadKey": "${uploadKey}" }`,
    });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(created);
    expect(await jobCount()).toBe(before.jobs + 1);
    expect(await balance()).toBe(before.balance - created.creditsRequired);
  });

  test('the same key with another request is 409 IDEMPOTENCY_KEY_REUSED and creates nothing', async () => {
    const first = await post(a, '/v1/jobs', { uploadKey, outputType: 'VOCALS' }, 'reuse-1');
    expect(first.status).toBe(201);
    const jobs = await jobCount();
    const other = await post(b, '/v1/jobs', { uploadKey, outputType: 'FOUR_STEMS' }, 'reuse-1');
    expect(other.status).toBe(409);
    expect(((await other.json()) as any).error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    // Another path with the same key is another request too.
    const elsewhere = await post(a, '/v1/upload', { filename: 'x.wav' }, 'reuse-1');
    expect(((await elsewhere.json()) as any).error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await jobCount()).toBe(jobs);
  });

  test('two identical requests racing on two API processes create one job; both get its answer', async () => {
    const jobs = await jobCount();
    const body = { uploadKey, outputType: 'INSTRUMENTAL' };
    for (let round = 0; round < 3; round++) {
      const [r1, r2] = await Promise.all([
        post(a, '/v1/jobs', body, `race-${round}`),
        post(b, '/v1/jobs', body, `race-${round}`),
      ]);
      expect([r1.status, r2.status]).toEqual([201, 201]);
      const [j1, j2] = (await Promise.all([r1.json(), r2.json()])) as [{ id: string }, { id: string }];
      expect(j1.id).toBe(j2.id);
      const replayed = [r1, r2].filter((r) => r.headers.get('idempotent-replayed') === 'true').length;
      expect(replayed).toBe(1);
    }
    expect(await jobCount()).toBe(jobs + 3);
  });

  test('keys are per account', async () => {
    const other = await a.newAccount(600);
    const res = await post(a, '/v1/upload', { filename: 'mine.wav' }, 'shared-key');
    const res2 = await post(b, '/v1/upload', { filename: 'mine.wav' }, 'shared-key', other.key);
    expect(res.status).toBe(200);
    expect(res2.status).toBe(200);
    expect(res2.headers.get('idempotent-replayed')).toBeNull();
    expect(((await res.json()) as any).uploadKey).not.toBe(((await res2.json()) as any).uploadKey);
  });

  test('a deterministic 400 is replayed; a 402 frees the key for the retry after a top-up', async () => {
    const conflicting = { uploadKey, sourceUrl: 'https://example.com/a.mp3' };
    const r1 = await post(a, '/v1/jobs', conflicting, 'bad-1');
    expect(r1.status).toBe(400);
    const r2 = await post(b, '/v1/jobs', conflicting, 'bad-1');
    expect(r2.status).toBe(400);
    expect(r2.headers.get('idempotent-replayed')).toBe('true');
    expect(await r2.json()).toEqual(await r1.json());

    const poor = await a.newAccount(1);
    const upl = await uploadFile(a, poor.key, await makeTone(join(a.dataDir, 'tone2.wav'), 3), 'tone2.wav');
    const broke = await post(a, '/v1/jobs', { uploadKey: upl }, 'topup-1', poor.key);
    expect(broke.status).toBe(402);
    expect(await findIdempotencyKey(a.rt.db, poor.id, 'topup-1')).toBeNull();
    await grantCredits(a.rt.db, poor.id, 60);
    const paid = await post(b, '/v1/jobs', { uploadKey: upl }, 'topup-1', poor.key);
    expect(paid.status).toBe(201);
    expect(paid.headers.get('idempotent-replayed')).toBeNull();
    expect(await jobCount(poor.key)).toBe(1);
  });

  test('a claim left running by a crashed process is taken over once its lock ran out', async () => {
    const body = { filename: 'after-crash.wav' };
    const now = Date.now();
    const row = {
      account_id: user.id,
      key: 'crashed-1',
      claim_id: 'dead-process',
      request_hash: hashOf('POST', '/v1/upload', body),
      status: 'running' as const,
      response_status: null,
      response_body: null,
      created_at: new Date(now - 3_600_000).toISOString(),
      locked_until: new Date(now - 1000).toISOString(),
      expires_at: new Date(now + 3_600_000).toISOString(),
    };
    await a.rt.db.insertInto('idempotency_keys').values(row).execute();
    const res = await post(b, '/v1/upload', body, 'crashed-1');
    expect(res.status).toBe(200);
    expect((await findIdempotencyKey(a.rt.db, user.id, 'crashed-1'))?.status).toBe('done');

    // A live claim (lock not run out): the duplicate waits for it, then answers 409 IN_PROGRESS.
    await a.rt.db
      .insertInto('idempotency_keys')
      .values({ ...row, key: 'running-1', locked_until: new Date(now + 600_000).toISOString() })
      .execute();
    const started = Date.now();
    const busy = await post(a, '/v1/upload', body, 'running-1');
    expect(busy.status).toBe(409);
    expect(((await busy.json()) as any).error.code).toBe('IDEMPOTENCY_KEY_IN_PROGRESS');
    expect(busy.headers.get('retry-after')).toBe('1');
    expect(Date.now() - started).toBeGreaterThanOrEqual(4_000);

    // Embedded (no REDIS_URL, one API process): a restart frees the claims its predecessor held.
    const env = { DATABASE_URL: db.url, ALLOW_PRIVATE_URLS: 'true', MIN_DURATION_SECONDS: '1' };
    const restarted = await startTestServer('sqlite', env, {}, { dbSchema: db.schema });
    try {
      expect(await findIdempotencyKey(a.rt.db, user.id, 'running-1')).toBeNull();
      const after = await post(restarted, '/v1/upload', body, 'running-1');
      expect(after.status).toBe(200);
    } finally {
      await restarted.close();
    }
  }, 30_000);

  test('the job and its answer commit together: a crash before the answer leaves cannot create a second job', async () => {
    const body = { uploadKey, outputType: 'BOTH' };
    const before = { jobs: await jobCount(), balance: await balance() };
    const claimFor = async (key: string, lockMs: number) => {
      const claim = await claimIdempotencyKey(a.rt.db, {
        accountId: user.id,
        key,
        requestHash: hashOf('POST', '/v1/jobs', body),
        now: new Date(),
        lockMs,
        ttlMs: 3_600_000,
      });
      if (claim.kind !== 'claimed') throw new Error('the key should be free');
      const render = (r: unknown) => JSON.stringify(JobCreated.parse(r));
      return { accountId: user.id, key, claimId: claim.claimId, status: 201, render };
    };
    // The process creates the job, then dies before its answer is stored by the response hook.
    const created = await createStemJob(a.rt, user.id, CreateJobRequest.parse(body), await claimFor('commit-1', 0));
    const retry = await post(b, '/v1/jobs', body, 'commit-1');
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(((await retry.json()) as { id: string }).id).toBe(created.id);
    expect(await jobCount()).toBe(before.jobs + 1);
    expect(await balance()).toBe(before.balance - created.creditsRequired);

    // A claim taken over (its lock ran out, a retry claimed the key) before the job committed:
    // the stalled creation rolls back, job and hold together.
    const stalled = await claimFor('commit-2', 0);
    await claimIdempotencyKey(a.rt.db, {
      ...stalled,
      requestHash: hashOf('POST', '/v1/jobs', body),
      now: new Date(),
      lockMs: 60_000,
      ttlMs: 3_600_000,
    });
    await expect(createStemJob(a.rt, user.id, CreateJobRequest.parse(body), stalled)).rejects.toMatchObject({
      code: 'IDEMPOTENCY_KEY_IN_PROGRESS',
    });
    expect(await jobCount()).toBe(before.jobs + 1);
    expect(await balance()).toBe(before.balance - created.creditsRequired);
  });

  test('expired keys are swept and do not block a new request', async () => {
    const now = Date.now();
    await a.rt.db
      .insertInto('idempotency_keys')
      .values({
        account_id: user.id,
        key: 'old-1',
        claim_id: 'x',
        request_hash: 'another request',
        status: 'done',
        response_status: 200,
        response_body: '{}',
        created_at: new Date(now - 2 * 86_400_000).toISOString(),
        locked_until: new Date(now - 2 * 86_400_000).toISOString(),
        expires_at: new Date(now - 86_400_000).toISOString(),
      })
      .execute();
    const res = await post(a, '/v1/upload', { filename: 'new.wav' }, 'old-1');
    expect(res.status).toBe(200);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
    await a.rt.db
      .updateTable('idempotency_keys')
      .set({ expires_at: new Date(now - 1).toISOString() })
      .where('key', '=', 'old-1')
      .execute();
    expect(await sweepIdempotencyKeys(a.rt.db, new Date())).toBeGreaterThanOrEqual(1);
    expect(await findIdempotencyKey(a.rt.db, user.id, 'old-1')).toBeNull();
  });

  test('a malformed key is 400; every creating POST honours the header', async () => {
    const long = await post(a, '/v1/upload', { filename: 'a.wav' }, 'k'.repeat(256));
    expect(long.status).toBe(400);
    expect(((await long.json()) as any).error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'Idempotency-Key' });
    const ok255 = await post(a, '/v1/upload', { filename: 'a.wav' }, 'k'.repeat(255));
    expect(ok255.status).toBe(200);
    const spaced = await post(a, '/v1/upload', { filename: 'a.wav' }, 'has space');
    expect(spaced.status).toBe(400);

    const webhook = { url: 'http://127.0.0.1:9/hook' };
    const w1 = await post(a, '/v1/webhooks', webhook, 'wh-1');
    const w2 = await post(b, '/v1/webhooks', webhook, 'wh-1');
    expect(w1.status).toBe(201);
    expect(w2.headers.get('idempotent-replayed')).toBe('true');
    expect(((await w2.json()) as any).id).toBe(((await w1.json()) as any).id);
    const list = (await (await a.api('/v1/webhooks', { key: user.key })).json()) as any;
    expect(list.webhooks).toHaveLength(1);

    const wav = await makeTone(join(a.dataDir, 'form.wav'), 2);
    const { readFile } = await import('node:fs/promises');
    const bytes = await readFile(wav);
    const form = () => {
      const f = new FormData();
      f.append('file', new Blob([bytes], { type: 'audio/wav' }), 'form.wav');
      return f;
    };
    const up = (s: TestServer) =>
      s.api('/v1/files/upload', {
        method: 'POST',
        key: user.key,
        body: form(),
        headers: { 'idempotency-key': 'file-1' },
      });
    const u1 = await up(a);
    const u2 = await up(b);
    expect(u1.status).toBe(200);
    expect(u2.status).toBe(200);
    expect(u2.headers.get('idempotent-replayed')).toBe('true');
    expect(((await u2.json()) as any).uploadKey).toBe(((await u1.json()) as any).uploadKey);
  });
});

function hashOf(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method}\n${path}\njson\n${canonicalJson(body)}`)
    .digest('hex');
}
