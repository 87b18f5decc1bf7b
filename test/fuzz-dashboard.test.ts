import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { z } from 'zod';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { dialects } from './helpers/db.ts';
import { sessionClient } from './helpers/dashboard.ts';
import {
  anyId,
  BATCH,
  bodyFor,
  type FuzzRequest,
  FUZZ_TIME_LIMIT_MS,
  type Schema,
  sendAndCheck,
} from './helpers/fuzz.ts';
import { type AnyRoute, methodsOf } from '../src/routing/route.ts';
import { sessionRoutes } from '../src/dashboard/routes/sessions.ts';
import { accountRoutes } from '../src/dashboard/routes/account.ts';
import { jobRoutes } from '../src/dashboard/routes/jobs.ts';
import { jobActionRoutes } from '../src/dashboard/routes/job-actions.ts';
import { keyRoutes } from '../src/dashboard/routes/keys.ts';
import { webhookRoutes } from '../src/dashboard/routes/webhooks.ts';
import { adminRoutes } from '../src/dashboard/routes/admin.ts';

/** 150 batches of 8 per database. */
const RUNS = 150;

/**
 * Issue 41: property-based fuzzing of the dashboard's JSON API (`/dashboard/api/*`, not in the
 * OpenAPI document), generated from its route schemas, signed in as an admin (so the Admin pages'
 * routes are reached) and not signed in (sign-in included), with the hostile values of
 * `fuzz-api.test.ts`, on both databases: no 5xx, and every 4xx in the contract's error body. A NUL
 * in a sign-in email answered 500 on PostgreSQL before.
 */
describe.each(dialects)('dashboard fuzzing on %s', (dialect) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer(dialect, {
      RATE_LIMIT_PER_MINUTE: '1000000',
      DASHBOARD_REQUESTS_PER_MINUTE: '1000000',
      SOURCE_FETCH_TIMEOUT_MS: '500',
      MAX_FILE_SIZE_MB: '1',
    });
    await s.newAccount(100_000);
  });
  afterAll(async () => {
    await s?.close();
  });

  test("the dashboard's JSON routes, signed in and not: no 5xx, the contract error body on every 4xx", async () => {
    // The first account is the admin: its session reaches the Admin pages' routes too.
    const admin = (await s.rt.db.selectFrom('accounts').select('id').where('is_admin', '=', 1).executeTakeFirst())!;
    const dash = await sessionClient(s, admin.id);
    const routes = [
      ...sessionRoutes(s.rt),
      ...accountRoutes(s.rt),
      ...jobRoutes(s.rt),
      ...jobActionRoutes(s.rt),
      ...keyRoutes(s.rt),
      ...webhookRoutes(s.rt),
      ...adminRoutes(s.rt),
      // Signing out or changing the password would end the session the other requests use.
    ].filter((r) => !(r.url.endsWith('/session') && r.method === 'DELETE') && !r.url.endsWith('/password'));
    const jsonSchema = (schema: z.ZodType | undefined) =>
      schema ? (z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Schema) : undefined;
    // A body schema's references point into its own `$defs`.
    const bodyOf = (schema: z.ZodType) => {
      const js = jsonSchema(schema)!;
      return bodyFor(js, (js.$defs ?? {}) as Record<string, Schema>);
    };
    const requestFor = (route: AnyRoute): fc.Arbitrary<FuzzRequest> => {
      const query = jsonSchema(route.query);
      const queryNames = Object.keys(query?.properties ?? {});
      return fc
        .record({
          ids: fc.array(anyId(), { minLength: 3, maxLength: 3 }),
          query: fc.array(
            fc.tuple(
              fc.constantFrom(...queryNames, '__proto__'),
              fc.oneof(fc.constantFrom('-1', '1e400', '%00', '\u202e', 'COMPLETED', ''), fc.string({ maxLength: 20 })),
            ),
            { maxLength: 3 },
          ),
          body: route.body ? bodyOf(route.body) : fc.constant(undefined),
          signedIn: fc.boolean(),
        })
        .map(({ ids, query, body, signedIn }) => {
          let i = 0;
          let path = route.url.replace(/:\w+/g, () => ids[i++]!);
          if (query.length) path += `?${query.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')}`;
          const headers: Record<string, string> = {};
          if (body !== undefined) headers['content-type'] = 'application/json';
          if (signedIn && dash.cookie && dash.csrf) {
            headers.cookie = dash.cookie;
            headers['x-csrf-token'] = dash.csrf;
          }
          const method = methodsOf(route)[0]!;
          return { method, path, headers, body, label: `${method} ${route.url}` };
        });
    };
    let sent = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(...routes.map(requestFor)), { minLength: BATCH, maxLength: BATCH }),
        async (batch) => {
          sent += (await sendAndCheck(s.base, batch)).length;
        },
      ),
      { numRuns: RUNS, interruptAfterTimeLimit: FUZZ_TIME_LIMIT_MS, markInterruptAsFailure: false },
    );
    expect(sent).toBeGreaterThanOrEqual(400);
    expect((await dash.call('GET', '/session')).status).toBe(200);
  }, 120_000);
});
