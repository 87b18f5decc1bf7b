import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { SIGN_IN_FREE_FAILURES } from '../src/dashboard/throttle.ts';
import { dashboardClient, newDashboardUser, BEHIND_LOCAL_PROXY } from './helpers/dashboard.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { freshDatabase, type TestDatabase } from './helpers/db.ts';
import { s3Settings, startS3Server, type TestS3Server } from './helpers/s3-server.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * Two API processes' worth of app (two runtimes, two listeners) in the scale-out deployment, over one
 * PostgreSQL database, one Redis and one S3 store: a session made on one is honoured by the other, sign-out on one
 * ends it on both, and the sign-in throttle counts attempts across both.
 */
describe('dashboard sessions and throttling across API instances (shared database and Redis)', () => {
  let a: TestServer;
  let b: TestServer;
  let db: TestDatabase;
  let s3: TestS3Server;
  beforeAll(async () => {
    db = await freshDatabase('postgres');
    s3 = await startS3Server('stemforge-dashboard-scale');
    const env = {
      STEMFORGE_MODE: 'scale-out',
      DATABASE_URL: db.url,
      REDIS_URL,
      REDIS_PREFIX: `sf-dash-${randomBytes(4).toString('hex')}`,
      ...s3Settings(s3),
      STEMFORGE_SIGNING_SECRET: randomBytes(32).toString('hex'),
      ...BEHIND_LOCAL_PROXY,
    };
    a = await startTestServer('sqlite', env, {}, { dbSchema: db.schema });
    b = await startTestServer('sqlite', env, {}, { dbSchema: db.schema });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await db?.destroy();
    await s3?.close();
  });

  test('a session from instance A works on B; sign-out on B ends it on A', async () => {
    const user = await newDashboardUser(a);
    const onA = dashboardClient(a);
    expect((await onA.signIn(user.email, user.password)).status).toBe(200);
    const onB = dashboardClient(b);
    onB.cookie = onA.cookie;
    onB.csrf = onA.csrf;
    expect(await (await onB.call('GET', '/session')).json()).toMatchObject({ account: { id: user.id } });
    expect((await onB.call('POST', '/keys', { name: 'from B' })).status).toBe(201);
    expect((await onB.call('DELETE', '/session')).status).toBe(204);
    expect((await onA.call('GET', '/session')).status).toBe(401);
  });

  test('failed sign-ins from one address on A and B add up: the next one from it is refused on either', async () => {
    const user = await newDashboardUser(a);
    const address = '10.202.7.7';
    for (let i = 0; i < SIGN_IN_FREE_FAILURES; i++) {
      const res = await dashboardClient(i % 2 ? a : b, address).signIn(user.email, 'not the password');
      expect(res.status).toBe(401);
    }
    expect((await dashboardClient(a, address).signIn(user.email, user.password)).status).toBe(429);
    expect((await dashboardClient(b, address).signIn(user.email, user.password)).status).toBe(429);
    // The owner at another address is not held back by them.
    expect((await dashboardClient(b).signIn(user.email, user.password)).status).toBe(200);
  });
});
