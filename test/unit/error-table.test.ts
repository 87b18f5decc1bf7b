import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiError } from '../../src/domain/errors.ts';
import { answerOf } from '../../src/http/error-table.ts';
import { BlobNotFoundError } from '../../src/storage/errors.ts';
import { DependencyUnavailableError } from '../../src/domain/dependency-error.ts';
import { KeyLimitError, MAX_ACTIVE_KEYS } from '../../src/store/api-keys.ts';
import { MAX_WEBHOOKS_PER_ACCOUNT, WebhookLimitError } from '../../src/store/webhooks.ts';

describe('the error table: what routes and services throw, as the API answers it', () => {
  it('passes an ApiError through, logging only the server-side ones', () => {
    const mine = new ApiError('JOB_NOT_FOUND', 'No job x.');
    expect(answerOf(mine)).toEqual({ answer: mine, log: undefined });
    const down = new ApiError('SERVICE_UNAVAILABLE');
    expect(answerOf(down)?.log).toBe(down.message);
  });

  it('maps the limits of the store to their codes, statuses and limit fields', () => {
    const keys = answerOf(new KeyLimitError('account a already has 5 active keys'))?.answer;
    expect(keys?.status).toBe(409);
    expect(keys?.toBody()).toEqual({
      error: {
        code: 'API_KEY_LIMIT_REACHED',
        message: `This account already has ${MAX_ACTIVE_KEYS} active API keys; revoke one first.`,
        limit: MAX_ACTIVE_KEYS,
      },
    });
    const hooks = answerOf(new WebhookLimitError('this account already has 5 webhooks'))?.answer;
    expect(hooks?.status).toBe(409);
    expect(hooks?.toBody()).toEqual({
      error: {
        code: 'WEBHOOK_LIMIT_REACHED',
        message: `This account already has ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks; delete one first.`,
        limit: MAX_WEBHOOKS_PER_ACCOUNT,
      },
    });
  });

  it('answers a dependency away 503 with Retry-After, naming it but not the cause, and logs nothing per request', () => {
    const known = answerOf(new DependencyUnavailableError('redis', 'ECONNREFUSED'));
    expect(known?.log).toBeUndefined();
    expect(known?.answer.status).toBe(503);
    expect(known?.answer.headers).toEqual({ 'Retry-After': '5' });
    expect(known?.answer.toBody()).toEqual({
      error: {
        code: 'SERVICE_UNAVAILABLE',
        message: 'The service cannot reach Redis (the job queue) right now; retry after the seconds in Retry-After.',
      },
    });
  });

  it('answers a missing blob 404 without naming its key', () => {
    const answer = answerOf(new BlobNotFoundError('jobs/job_1/vocals.mp3'))?.answer;
    expect(answer?.status).toBe(404);
    expect(answer?.code).toBe('FILE_NOT_FOUND');
    expect(JSON.stringify(answer?.toBody())).not.toContain('jobs/');
  });

  it('turns a response that fails its schema into a logged 500', () => {
    const failed = z.object({ a: z.string() }).safeParse({ a: 1 });
    const known = answerOf(failed.error);
    expect(known?.answer.status).toBe(500);
    expect(known?.answer.code).toBe('INTERNAL_ERROR');
    expect(known?.log).toBe('response failed its schema');
  });

  it('knows nothing of other errors (the handler answers them as the framework’s or a 500)', () => {
    expect(answerOf(new Error('boom'))).toBeUndefined();
    expect(answerOf('a string')).toBeUndefined();
  });
});
