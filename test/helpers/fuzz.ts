import fc from 'fast-check';
import { expect } from 'vitest';

/**
 * What the fuzz suites share (`test/fuzz-api.test.ts`, `test/fuzz-dashboard.test.ts`): hostile
 * values, JSON Schema to fast-check arbitraries, and the one check of every answer.
 */

/** Batches of this many requests are sent at once; a run is cut at FUZZ_TIME_LIMIT_MS on a loaded machine. */
export const BATCH = 8;
export const FUZZ_TIME_LIMIT_MS = 45_000;

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type Schema = Record<string, any>;

export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  label: string;
}

const deepObject = (n: number): Json => {
  let v: Json = 1;
  for (let i = 0; i < n; i++) v = { a: v };
  return v;
};
const deepArray = (n: number): Json => {
  let v: Json = [];
  for (let i = 0; i < n; i++) v = [v];
  return v;
};

/** Values that have broken servers before, whatever the field's declared type. */
export const HOSTILE_VALUES: Json[] = [
  null,
  true,
  0,
  -1,
  2 ** 53 + 1,
  -(2 ** 63),
  1e308,
  -1e308,
  5e-324,
  0.1,
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  'line\r\nX-Injected: 1',
  'name\u202Egpj.exe',
  '\uFEFF\u200B',
  '\uD800',
  '😀'.repeat(300),
  'x'.repeat(5000),
  '../../../../etc/passwd',
  '..\\..\\windows\\win.ini',
  '%00%2e%2e%2f',
  '<script>alert(1)</script>',
  "' OR '1'='1",
  '$' + '{7*7}{{7*7}}',
  'http://127.0.0.1:22/',
  'http://[::1]/',
  'http://169.254.169.254/latest/meta-data/',
  'file:///etc/passwd',
  'javascript:alert(1)',
  'upl_',
  'https://www.youtube.com/watch?v=',
  '9'.repeat(400),
  [],
  [[[]]],
  {},
  { '': '' },
  deepObject(20),
  deepObject(40),
  deepArray(40),
  Array.from({ length: 2000 }, (_, i) => i),
];

/** Raw bodies that are not what a JSON route expects. */
export const HOSTILE_BODIES = [
  '',
  ' ',
  'null',
  '[]',
  '"string"',
  '123',
  '{',
  '{"a":}',
  '{"a":1e999}',
  '{"a":-1e999}',
  '{"__proto__":{"admin":true}}',
  '{"metadata":{"__proto__":{"x":1}}}',
  '{"constructor":{"prototype":{"x":1}}}',
  '{"a":"\\u0000"}',
  '{"a":"\\ud800"}',
  '\u0000',
  '\uFEFF{}',
  `{"metadata":${'{"a":'.repeat(6000)}1${'}'.repeat(6000)}}`,
  `${'['.repeat(50_000)}${']'.repeat(50_000)}`,
  `{${Array.from({ length: 5000 }, (_, i) => `"k${i}":${i}`).join(',')}}`,
  `{"metadata":{"big":"${'x'.repeat(10_000)}"}}`,
];

export const HOSTILE_IDS = [
  'a'.repeat(101),
  'a'.repeat(3000),
  '%00',
  '%zz',
  '%',
  '..',
  '%2e%2e%2f%2e%2e',
  encodeURIComponent('😀'.repeat(30)),
  encodeURIComponent('\u202E'),
  'job_%0d%0aX:1',
  '0',
  '-1',
  '9'.repeat(100),
  'null',
  '__proto__',
  'constructor',
];

/** Header values fetch can send (ByteString): visible and Latin-1 characters, long and odd ones. */
export const headerValue = fc.oneof(
  fc.string({ maxLength: 40 }).map((s) => s.replace(/[^\x20-\x7e]/g, '')),
  fc.constantFrom('', ' ', 'k'.repeat(255), 'k'.repeat(256), 'k'.repeat(5000), 'é', '\u00ff\u00fe', 'a, b'),
);

/** A fast-check arbitrary for a JSON Schema (the subset zod emits), resolving component references. */
export function fromSchema(
  schema: Schema | undefined,
  components: Record<string, Schema>,
  depth = 0,
): fc.Arbitrary<Json> {
  if (!schema || depth > 5) return fc.constant(null);
  if (schema.$ref) return fromSchema(components[schema.$ref.split('/').pop()], components, depth + 1);
  if (schema.enum) return fc.constantFrom(...(schema.enum as Json[]));
  if (schema.const !== undefined) return fc.constant(schema.const as Json);
  const alternatives = (schema.anyOf ?? (schema.properties ? undefined : schema.oneOf)) as Schema[] | undefined;
  if (alternatives) return fc.oneof(...alternatives.map((s) => fromSchema(s, components, depth + 1)));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
      return fc.oneof(
        fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 40, 80) }),
        fc.webUrl(),
        fc.constantFrom(
          'song.mp3',
          'a.wav',
          'upl_0000000000',
          'https://www.youtube.com/watch?v=',
          'http://10.0.0.1/a.mp3',
        ),
      );
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1000, max: schema.maximum ?? 100_000 });
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(fromSchema(schema.items, components, depth + 1), { maxLength: 4 });
    default: {
      const props = (schema.properties ?? {}) as Record<string, Schema>;
      const record: Record<string, fc.Arbitrary<Json>> = {};
      for (const [k, v] of Object.entries(props)) record[k] = fromSchema(v, components, depth + 1);
      const base = fc.record(record, { requiredKeys: [] }) as fc.Arbitrary<Json>;
      if (Object.keys(props).length === 0)
        return fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>);
      return base;
    }
  }
}

/** A valid-looking body with one field, or an extra one, turned hostile. */
export function mutated(body: fc.Arbitrary<Json>, fieldNames: string[]): fc.Arbitrary<Json> {
  return fc
    .tuple(body, fc.constantFrom(...fieldNames, '__extra__', 'metadata'), fc.constantFrom(...HOSTILE_VALUES))
    .map(([b, field, value]) => {
      if (b === null || typeof b !== 'object' || Array.isArray(b)) return value;
      return { ...b, [field]: value };
    });
}

/** Sends a batch of requests; every answer below 500, every 4xx in the contract's body. Returns the statuses. */
export async function sendAndCheck(base: string, batch: FuzzRequest[]): Promise<number[]> {
  const answers = await Promise.all(
    batch.map(async (r) => {
      const res = await fetch(`${base}${r.path}`, {
        method: r.method,
        headers: r.headers,
        body: r.method === 'GET' || r.method === 'HEAD' ? undefined : r.body,
      });
      const text = await res.text();
      return { r, status: res.status, text, type: res.headers.get('content-type') ?? '' };
    }),
  );
  for (const { r, status, text, type } of answers) {
    const where = `${r.label} -> ${status} ${text.slice(0, 300)}`;
    expect(status, where).toBeLessThan(500);
    // A HEAD answer carries the GET's headers and no body.
    if (status >= 400 && r.method === 'HEAD') expect(type, where).toMatch(/^application\/json/);
    else if (status >= 400) {
      expect(type, where).toMatch(/^application\/json/);
      const body = JSON.parse(text);
      expect(typeof body.error?.code, where).toBe('string');
      expect(typeof body.error?.message, where).toBe('string');
      expect(body.error.message, where).not.toMatch(/FST_|\/tmp\/|stemforge-test-/);
    }
  }
  return answers.map((a) => a.status);
}

/** A hostile or ordinary id for a path parameter. */
export const anyId = () =>
  fc.oneof(
    fc.constantFrom(...HOSTILE_IDS),
    fc.string({ maxLength: 30 }).map(encodeURIComponent),
    fc.constantFrom('job_0000', 'upl_0000', 'wh_0000', 'acct_0000', 'key_0000'),
  );

/** A JSON body for a schema: valid-looking, one field turned hostile, a hostile raw body, or any JSON. */
export function bodyFor(schema: Schema | undefined, components: Record<string, Schema>): fc.Arbitrary<string> {
  const valid = fromSchema(schema, components);
  const names = Object.keys(schema?.properties ?? {});
  return fc.oneof(
    { arbitrary: valid.map((v) => JSON.stringify(v)), weight: 3 },
    { arbitrary: mutated(valid, names.length ? names : ['x']).map((v) => JSON.stringify(v)), weight: 4 },
    { arbitrary: fc.constantFrom(...HOSTILE_BODIES), weight: 2 },
    { arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)), weight: 1 },
  );
}
