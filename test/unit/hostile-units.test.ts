import { describe, expect, test } from 'vitest';
import { scrubUrl } from '../../src/log-redaction.ts';
import { scrubInternals } from '../../src/domain/client-message.ts';
import { readableError } from '../../src/worker/job-errors.ts';
import { BlobNotFoundError } from '../../src/storage/errors.ts';
import { checkJsonShape, MAX_JSON_DEPTH } from '../../src/http/json-body.ts';
import { canonicalJson } from '../../src/http/idempotency.ts';
import { loadConfig } from '../../src/config.ts';

describe('log URL scrubber (finding 9)', () => {
  test.each([
    ['/v1/balance?api_key=sk_live_abc', '/v1/balance?api_key=[redacted]'],
    ['/v1/uploads/upl_1?exp=123&sig=deadbeef', '/v1/uploads/upl_1?exp=123&sig=[redacted]'],
    [
      'https://b.s3.amazonaws.com/k?X-Amz-Credential=AKIA%2F1&X-Amz-Signature=ff&X-Amz-Expires=60',
      'https://b.s3.amazonaws.com/k?X-Amz-Credential=[redacted]&X-Amz-Signature=[redacted]&X-Amz-Expires=[redacted]',
    ],
    ['https://user:pass@hooks.example.com/x?ok=1', 'https://[redacted]@hooks.example.com/x?ok=1'],
    ['/v1/jobs/sk_live_pastedByMistake', '/v1/jobs/[redacted]'],
    ['/v1/jobs?limit=5&offset=10', '/v1/jobs?limit=5&offset=10'],
    [
      '/v1/x?access_token=t&password=p&ApiKey=k#frag',
      '/v1/x?access_token=[redacted]&password=[redacted]&ApiKey=[redacted]#frag',
    ],
    ['/v1/x?%E0%A4%A=1&secret', '/v1/x?%E0%A4%A=1&secret'],
  ])('%s', (raw, scrubbed) => {
    expect(scrubUrl(raw)).toBe(scrubbed);
  });
});

describe('runtime logger (finding 9)', () => {
  test('a URL field and a webhook secret are scrubbed in the runtime log', async () => {
    const { pino } = await import('pino');
    const { LOG_SERIALIZERS, REDACT_PATHS, REDACTED } = await import('../../src/log-redaction.ts');
    const lines: string[] = [];
    const log = pino(
      { redact: { paths: REDACT_PATHS, censor: REDACTED }, serializers: LOG_SERIALIZERS },
      { write: (l: string) => void lines.push(l) },
    );
    log.warn({ url: 'https://soundcloud.com/a/b/s-Priv4te?secret_token=s-Priv4te', kind: 'x' }, 'yt-dlp failed');
    log.info({ webhook: { secret: 'whsec_abc' }, secret: 'whsec_top' }, 'row');
    const text = lines.join('');
    expect(text).not.toContain('secret_token=s-Priv4te');
    expect(text).not.toContain('whsec_');
    expect(text).toContain('[redacted]');
  });
});

describe('client-visible messages (finding 9)', () => {
  test("a failed job's errorMessage names no storage key", () => {
    const message = readableError(new BlobNotFoundError('uploads/acc_1AbC/upl_9XyZ/source'));
    expect(message).not.toMatch(/uploads\/|acc_1AbC|upl_9XyZ/);
    expect(message).toBe('no blob at <stored file>');
    expect(readableError(new Error('cannot write jobs/job_1/vocals.mp3'))).toBe('cannot write <stored file>');
  });
  test('ffprobe-like text loses absolute paths, keeps the reason', () => {
    expect(scrubInternals('/tmp/stemforge-x/data/tmp/in_abc.part: Invalid data found when processing input')).toBe(
      '<file>: Invalid data found when processing input',
    );
    expect(scrubInternals('fetch https://example.com/jobs/b.mp3 failed')).toBe(
      'fetch https://example.com/jobs/b.mp3 failed',
    );
  });
});

describe('JSON body shape (findings 4 and 11)', () => {
  test('nesting beyond the limit is refused without recursion', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 200_000; i++) deep = { a: deep };
    expect(() => checkJsonShape({ metadata: deep })).toThrow(/deeper than 32 levels/);
    let ok: unknown = 1;
    for (let i = 0; i < MAX_JSON_DEPTH - 1; i++) ok = [ok];
    expect(() => checkJsonShape(ok)).not.toThrow();
  });
  test('prototype keys are refused by name', () => {
    expect(() => checkJsonShape(JSON.parse('{"m":{"__proto__":{"x":1}}}'))).toThrow(/'__proto__' is not allowed/);
    expect(() => checkJsonShape({ constructor: { prototype: {} } })).toThrow(/'constructor'/);
    expect(() => checkJsonShape({ constructor: 'a name' })).not.toThrow();
  });
  test('canonical JSON ignores key order and spacing', () => {
    expect(canonicalJson(JSON.parse('{"b":1,"a":{"d":[1,{"f":2,"e":3}],"c":null}}'))).toBe(
      '{"a":{"c":null,"d":[1,{"e":3,"f":2}]},"b":1}',
    );
  });
});

describe('timeouts (finding 7)', () => {
  test('documented defaults, each overridable', () => {
    expect(loadConfig({}).http).toEqual({
      requestTimeoutMs: 300_000,
      idleTimeoutMs: 120_000,
      keepAliveTimeoutMs: 5_000,
    });
    expect(loadConfig({}).idempotencyKeySeconds).toBe(86_400);
    const c = loadConfig({
      REQUEST_TIMEOUT_SECONDS: '30',
      IDLE_TIMEOUT_SECONDS: '10',
      KEEP_ALIVE_TIMEOUT_SECONDS: '2',
    });
    expect(c.http).toEqual({ requestTimeoutMs: 30_000, idleTimeoutMs: 10_000, keepAliveTimeoutMs: 2_000 });
    expect(() => loadConfig({ REQUEST_TIMEOUT_SECONDS: '0' })).toThrow(/REQUEST_TIMEOUT_SECONDS/);
  });
});
