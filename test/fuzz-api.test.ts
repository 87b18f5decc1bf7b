import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { resolve } from 'node:path';
import fc from 'fast-check';
import SwaggerParser from '@apidevtools/swagger-parser';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { dialects } from './helpers/db.ts';
import {
  anyId,
  BATCH,
  bodyFor,
  type FuzzRequest,
  FUZZ_TIME_LIMIT_MS,
  headerValue,
  type Schema,
  sendAndCheck,
} from './helpers/fuzz.ts';

/**
 * Property-based fuzzing of the whole API against a real server on loopback (the dashboard's routes:
 * `fuzz-dashboard.test.ts`). Requests are generated from the served OpenAPI document (every
 * operation, its parameters and its request body schema), mixed with hostile values:
 * deep nesting, huge numbers, unicode, NUL, CR LF, bidi overrides, long ids, wrong types, prototype
 * keys, malformed JSON and URLs. Every answer must be below 500, and every 4xx must be the
 * contract's `{"error":{"code","message"}}`. On both databases (issue 41): PostgreSQL refuses text
 * SQLite stores, so a value that passes on one may break a query on the other.
 * The video and track sites are a FAKE yt-dlp (test/fixtures/fake-yt-dlp): they cannot be reached here.
 */

/** 400 batches of 8: 3,200 requests, cut at FUZZ_TIME_LIMIT_MS on a machine too loaded to finish them. */
const RUNS = 400;

interface Operation {
  method: string;
  path: string;
  parameters: Array<{ name: string; in: string; required?: boolean; schema: Schema }>;
  body?: Schema;
  bodyType?: string;
  auth: boolean;
}

function operationsOf(doc: any): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      const content = op.requestBody?.content ?? {};
      const bodyType = Object.keys(content)[0];
      ops.push({
        method: method.toUpperCase(),
        path,
        parameters: op.parameters ?? [],
        body: bodyType ? content[bodyType].schema : undefined,
        bodyType,
        auth: (op.security ?? doc.security ?? []).length > 0,
      });
    }
  }
  return ops;
}

describe.each(dialects)('API fuzzing on %s', (dialect) => {
  let s: TestServer;
  let key: string;
  let doc: any;

  beforeAll(async () => {
    s = await startTestServer(dialect, {
      RATE_LIMIT_PER_MINUTE: '1000000',
      DASHBOARD_REQUESTS_PER_MINUTE: '1000000',
      SOURCE_FETCH_TIMEOUT_MS: '500',
      YTDLP_PATH: resolve(import.meta.dirname, 'fixtures/fake-yt-dlp'),
      YTDLP_TIMEOUT_MS: '2000',
      MAX_FILE_SIZE_MB: '1',
    });
    key = (await s.newAccount(100_000)).key;
    doc = await (await s.api('/v1/openapi.json')).json();
  });
  afterAll(async () => {
    await s?.close();
  });

  test('the served OpenAPI document validates, and every $ref resolves', async () => {
    // The validator dereferences every $ref and checks the document against the OpenAPI 3.1 schema.
    const copy = structuredClone(doc);
    await expect(SwaggerParser.validate(copy)).resolves.toBeTruthy();
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"([^"]+)"/g)].map((m) => m[1]);
    expect(refs.length).toBeGreaterThan(20);
    for (const ref of refs) expect(ref).toMatch(/^#\/components\/schemas\/\w+$/);
    const ops = operationsOf(doc);
    expect(ops.length).toBeGreaterThanOrEqual(20);
    expect(doc.paths['/v1/files/upload'].post.requestBody.content['multipart/form-data']).toBeTruthy();
    expect(doc.paths['/v1/jobs'].post.requestBody.content['application/json'].schema.oneOf).toHaveLength(2);
  });

  test('thousands of generated and hostile requests: no 5xx, the contract error body on every 4xx', async () => {
    const components = doc.components.schemas as Record<string, Schema>;
    // /readyz runs ffmpeg on every call and takes no input: nothing to fuzz, and slow on a loaded machine.
    const ops = operationsOf(doc).filter((op) => op.path !== '/readyz');
    // Routes outside the document: the signed upload target and the signed blob downloads.
    ops.push(
      { method: 'PUT', path: '/v1/uploads/{id}', parameters: [], auth: false, bodyType: 'audio/wav' },
      { method: 'GET', path: '/v1/blobs/{id}', parameters: [], auth: false },
    );

    const requestFor = (op: Operation): fc.Arbitrary<FuzzRequest> => {
      const pathParams = op.parameters.filter((p) => p.in === 'path');
      const queryParams = op.parameters.filter((p) => p.in === 'query');
      const id = anyId();
      const query = fc.array(
        fc.tuple(
          fc.constantFrom(...queryParams.map((p) => p.name), 'exp', 'sig', 'api_key', '__proto__', 'limit[]'),
          fc.oneof(
            fc.constantFrom('-1', '0', '1e400', '9'.repeat(40), 'NaN', 'null', '', '%00', 'PENDING', 'COMPLETED'),
            fc.string({ maxLength: 20 }),
          ),
        ),
        { maxLength: 4 },
      );
      let body: fc.Arbitrary<string | undefined> = fc.constant(undefined);
      if (op.bodyType === 'application/json' && op.body) {
        body = bodyFor(op.body.$ref ? components[op.body.$ref.split('/').pop()!] : op.body, components);
      } else if (op.bodyType) {
        body = fc.oneof(
          fc.constant(undefined),
          fc.constantFrom('', 'not a file', '--x\r\nContent-Disposition: form-data; name="file"\r\n\r\nabc\r\n--x--'),
        );
      }
      const contentType = fc.oneof(
        { arbitrary: fc.constant(op.bodyType ?? 'application/json'), weight: 6 },
        {
          arbitrary: fc.constantFrom(
            'application/json; charset=utf-16',
            'text/plain',
            'multipart/form-data',
            'multipart/form-data; boundary=x',
            'application/x-www-form-urlencoded',
            'application/vnd.api+json',
            '',
          ),
          weight: 1,
        },
      );
      const authHeader = op.auth
        ? fc.oneof(
            { arbitrary: fc.constant(`Bearer ${key}`), weight: 8 },
            { arbitrary: headerValue.map((v) => `Bearer ${v}`), weight: 1 },
            { arbitrary: fc.constantFrom('', 'Basic YTpi', `Bearer ${key}x`, 'Bearer sk_live_'), weight: 1 },
          )
        : fc.constant('');
      const idem = fc.option(headerValue, { freq: 3 });
      return fc
        .record({
          ids: fc.array(id, { minLength: pathParams.length + 1, maxLength: pathParams.length + 1 }),
          query,
          body,
          contentType,
          authHeader,
          idem,
        })
        .map(({ ids, query, body, contentType, authHeader, idem }) => {
          let i = 0;
          let path = op.path.replace(/\{\w+\}/g, () => ids[i++]!);
          if (query.length) path += `?${query.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')}`;
          const headers: Record<string, string> = {};
          if (authHeader) headers.authorization = authHeader;
          if (body !== undefined && contentType) headers['content-type'] = contentType;
          if (idem !== null) headers['idempotency-key'] = idem;
          return { method: op.method, path, headers, body, label: `${op.method} ${op.path}` };
        });
    };

    const anyRequest = fc.oneof(...ops.map(requestFor));
    let sent = 0;
    const byStatus = new Map<number, number>();
    const started = Date.now();
    await fc.assert(
      fc.asyncProperty(fc.array(anyRequest, { minLength: BATCH, maxLength: BATCH }), async (batch) => {
        for (const status of await sendAndCheck(s.base, batch)) {
          sent++;
          byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
        }
      }),
      { numRuns: RUNS, interruptAfterTimeLimit: FUZZ_TIME_LIMIT_MS, markInterruptAsFailure: false },
    );
    const seconds = (Date.now() - started) / 1000;
    const statuses = [...byStatus.entries()].sort((a, b) => a[0] - b[0]).map(([k, v]) => `${k}:${v}`);
    console.log(
      `fuzz (${dialect}): ${sent} requests in ${seconds.toFixed(1)} s over ${ops.length} operations; ${statuses.join(' ')}`,
    );
    expect(sent).toBeGreaterThanOrEqual(1000);
    // The server is still healthy.
    expect((await s.api('/v1/balance', { key })).status).toBe(200);
  }, 120_000);
});
