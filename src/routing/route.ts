import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { ApiError, type ErrorCode } from '../domain/errors.ts';
import type { IdempotentAnswer } from '../store/idempotency-keys.ts';
import type { AuthContext } from './request-context.ts';
import { findUnstorableText } from './storable-input.ts';
import { LONE_SURROGATE } from '../domain/safe-text.ts';

/**
 * A route declared once: its zod schemas validate the request, check the response, and feed the
 * OpenAPI document (`src/http/openapi.ts`). Handlers receive parsed input and return the body.
 */
// biome-ignore lint/suspicious/noExplicitAny: a list of routes holds every body, query and params type at once
export type AnyRoute = RouteSpec<any, any, any>;

export interface RouteSpec<B = unknown, Q = unknown, P = unknown> {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD';
  /** Fastify path, e.g. `/v1/jobs/:id`. */
  url: string;
  summary: string;
  tag: string;
  /** `apiKey`: Bearer key + rate limit; `none`: public or signature-authenticated (checked by the handler). */
  auth: 'apiKey' | 'none';
  /**
   * `poll`: reads of one's own job count against a separate, larger per-key budget (10x the
   * per-minute limit), so polling a running job never starves the account's other calls.
   */
  rateBucket?: 'poll';
  body?: z.ZodType<B>;
  query?: z.ZodType<Q>;
  params?: z.ZodType<P>;
  /** Success status and its body schema (null for a non-JSON body such as a file). */
  status: number;
  response: z.ZodType | null;
  /** Only admin accounts' keys reach it (`auth: 'apiKey'` routes); others get 403 ADMIN_REQUIRED. */
  admin?: boolean;
  /** Error codes this route can answer besides the auth and rate-limit ones; for the OpenAPI document. */
  errors?: ErrorCode[];
  description?: string;
  handler: (input: RouteInput<B, Q, P>) => Promise<unknown>;
  /** Extra Fastify route options (e.g. a body limit). */
  bodyLimit?: number;
  /**
   * The route honours the Idempotency-Key header (`src/http/idempotency.ts`). Defaults to true for
   * an authenticated POST: every one of ours creates something.
   */
  idempotent?: boolean;
  /** A request body that is not JSON (multipart), for the OpenAPI document: media type and JSON Schema. */
  documentedBody?: { mediaType: string; schema: Record<string, unknown> };
}

export interface RouteInput<B, Q, P> {
  body: B;
  query: Q;
  params: P;
  auth: AuthContext;
  request: FastifyRequest;
  reply: FastifyReply;
  /**
   * Set when the request claimed an Idempotency-Key: the creating transaction writes the answer with
   * what it creates (`insertHeldJob`), so a crash before the answer is stored cannot free the key.
   */
  idempotent?: IdempotentAnswer;
}

export function defineRoute<B = unknown, Q = unknown, P = unknown>(spec: RouteSpec<B, Q, P>): RouteSpec<B, Q, P> {
  return spec;
}

/**
 * Parses a request part, turning zod issues into VALIDATION_ERROR naming the field. Text that
 * cannot be stored (NUL, a lone surrogate: `src/domain/safe-text.ts`) is refused first, in every
 * field, whatever the schema says of it.
 */
export function parseInput<T>(schema: z.ZodType<T>, value: unknown, where: 'body' | 'query' | 'path'): T {
  const input = value ?? (where === 'body' ? undefined : {});
  const unstorable = findUnstorableText(input);
  if (unstorable) {
    // The field's name is echoed: without the very characters that made it unstorable.
    const field = unstorable.path.replaceAll('\u0000', '').replace(LONE_SURROGATE, '\ufffd');
    const shown = field.length > 80 ? `${field.slice(0, 80)}…` : field;
    const target = shown ? `field '${shown}' in ${where}` : where;
    const reason = unstorable.reason.startsWith('must') ? `it ${unstorable.reason}` : unstorable.reason;
    throw new ApiError('VALIDATION_ERROR', `Invalid ${target}: ${reason}.`, { field: field || null });
  }
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw validationError(result.error, where, input);
}

/**
 * The first zod issue as a message that says what is wrong: a missing field, a wrong type (with the
 * type sent), an unknown field, a value out of range. `input` is what was parsed, to tell a missing
 * field from one of the wrong type (zod does not keep the input by default).
 */
export function validationError(error: z.ZodError, where: string, input?: unknown): ApiError {
  const [issue] = error.issues;
  if (!issue) return new ApiError('VALIDATION_ERROR', `Invalid ${where}.`, { field: null });
  const field = issue.path.join('.');
  if (!field) {
    if (issue.code === 'unrecognized_keys') {
      const keys = issue.keys.map((k) => `'${k.slice(0, 50)}'`).join(', ');
      return new ApiError('VALIDATION_ERROR', `Unknown field(s) ${keys} in ${where}.`, {
        field: issue.keys[0] ?? null,
      });
    }
    if (issue.code === 'invalid_type' && where === 'body') {
      const sent = input === undefined ? 'nothing' : typeName(input);
      return new ApiError('VALIDATION_ERROR', `The request body must be a JSON object (got ${sent}).`, {
        field: null,
      });
    }
    return new ApiError('VALIDATION_ERROR', `Invalid ${where}: ${issue.message}`, { field: null });
  }
  const shown = field.length > 80 ? `${field.slice(0, 80)}…` : field;
  return new ApiError('VALIDATION_ERROR', `Invalid field '${shown}' in ${where}: ${describeIssue(issue, input)}`, {
    field,
  });
}

function describeIssue(issue: z.core.$ZodIssue, input: unknown): string {
  if (issue.code === 'invalid_type') {
    const value = valueAt(input, issue.path);
    if (value === undefined) return 'it is required';
    // 1e400 is valid JSON that no double holds: JSON.parse (or a query's coercion) makes it Infinity.
    const n = typeof value === 'number' || typeof value === 'string' ? Number(value) : Number.NaN;
    if (Math.abs(n) === Infinity) {
      return `expected a finite number; the number sent is too large to represent (it reads as ${n})`;
    }
    return `expected ${issue.expected}, got ${typeName(value)}`;
  }
  if (issue.code === 'invalid_value' && 'values' in issue)
    return `expected one of ${issue.values.map(String).join(', ')}`;
  if (issue.code === 'unrecognized_keys') return `unknown field(s) ${issue.keys.map((k) => k.slice(0, 50)).join(', ')}`;
  return issue.message;
}

function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** Registers routes on a Fastify instance; JSON bodies must be sent as application/json. */
export function registerRoutes(app: FastifyInstance, routes: AnyRoute[]): void {
  for (const spec of routes) {
    app.route({
      method: spec.method,
      url: spec.url,
      bodyLimit: spec.bodyLimit,
      config: { auth: spec.auth, rateBucket: spec.rateBucket, idempotent: isIdempotent(spec), admin: spec.admin },
      handler: async (request, reply) => {
        if (spec.body && request.headers['content-type'] && !isJson(request)) {
          throw new ApiError(
            'UNSUPPORTED_MEDIA_TYPE',
            'Send the request body as JSON with Content-Type: application/json.',
          );
        }
        const input: RouteInput<unknown, unknown, unknown> = {
          body: spec.body ? parseInput(spec.body, request.body, 'body') : undefined,
          query: spec.query ? parseInput(spec.query, request.query, 'query') : undefined,
          params: spec.params ? parseInput(spec.params, request.params, 'path') : undefined,
          auth: request.auth as AuthContext,
          request,
          reply,
          idempotent: request.idempotency && {
            accountId: request.idempotency.accountId,
            key: request.idempotency.key,
            claimId: request.idempotency.claimId,
            status: spec.status,
            render: (result) => JSON.stringify(spec.response ? spec.response.parse(result) : result),
          },
        };
        const result = await spec.handler(input);
        if (reply.sent) return reply;
        reply.code(spec.status);
        // The response schema is the contract: a mismatch is a bug and surfaces in tests.
        return spec.response ? spec.response.parse(result) : result;
      },
    });
  }
}

export function isIdempotent(spec: AnyRoute): boolean {
  return spec.idempotent ?? (spec.method === 'POST' && spec.auth === 'apiKey');
}

function isJson(request: FastifyRequest): boolean {
  const type = request.headers['content-type'];
  return typeof type === 'string' && /^application\/(.+\+)?json\b/i.test(type);
}
