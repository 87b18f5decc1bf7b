import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { ApiError, ErrorCode } from '../domain/errors.ts';
import type { IdempotentAnswer } from '../store/idempotency-keys.ts';
import type { AuthContext } from './request-context.ts';

/**
 * A route declared once: its zod schemas validate the request, check the response, and feed the
 * OpenAPI document (`src/http/openapi-document.ts`). Handlers receive parsed input and return the body.
 * Every route of the site is declared this way and registered by `registerRoutes`
 * (`register-routes.ts`), the ones whose body is not JSON included (`bodyMode`).
 */
// biome-ignore lint/suspicious/noExplicitAny: a list of routes holds every body, query and params type at once
export type AnyRoute = RouteSpec<any, any, any>;

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD';

export interface RouteSpec<B = unknown, Q = unknown, P = unknown> {
  /** One method, or several answered by one handler (a GET that answers HEAD itself). */
  method: HttpMethod | readonly HttpMethod[];
  /** Fastify path, e.g. `/v1/jobs/:id`; a trailing `*` takes the rest of the path (param `*`). */
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
  /**
   * How the request body reaches the handler: `json` (default; parsed, then checked by `body`),
   * `stream` (any Content-Type, unread: `request.body` is the stream) or `multipart`
   * (@fastify/multipart with these limits, in a scope of its own; any other type reaches the handler
   * unread). Routes of the last two kinds register in encapsulated scopes.
   */
  bodyMode?: 'json' | 'stream' | { multipart: MultipartLimits };
  /** A request body that is not JSON, for the OpenAPI document: media type and JSON Schema. */
  documentedBody?: { mediaType: string; schema: Record<string, unknown> };
  /**
   * The answer when `params` or `query` do not parse, instead of VALIDATION_ERROR naming the field:
   * for signed URLs, whose parts the client never wrote itself.
   */
  invalidInput?: () => ApiError;
  /** false: not in the OpenAPI document (its own page, static assets, the dashboard's pages). */
  documented?: boolean;
}

/** @fastify/multipart's limits (busboy's names). */
export interface MultipartLimits {
  files: number;
  fields: number;
  fieldSize: number;
  parts: number;
  headerPairs: number;
  fileSize: number;
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

/** The route's methods as a list. */
export function methodsOf(spec: AnyRoute): readonly HttpMethod[] {
  return typeof spec.method === 'string' ? [spec.method] : spec.method;
}

export function isIdempotent(spec: AnyRoute): boolean {
  return spec.idempotent ?? (methodsOf(spec).includes('POST') && spec.auth === 'apiKey');
}
