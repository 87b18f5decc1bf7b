import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { ApiError, type ErrorCode } from '../domain/errors.ts';
import type { AuthContext } from './auth.ts';

/**
 * A route declared once: its zod schemas validate the request, check the response, and feed the
 * OpenAPI document (`src/http/openapi.ts`). Handlers receive parsed input and return the body.
 */
// biome-ignore lint/suspicious/noExplicitAny: a list of routes holds every body, query and params type at once
export type AnyRoute = RouteSpec<any, any, any>;

export interface RouteSpec<B = unknown, Q = unknown, P = unknown> {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'HEAD';
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
  /** Error codes this route can answer besides the auth and rate-limit ones; for the OpenAPI document. */
  errors?: ErrorCode[];
  description?: string;
  handler: (input: RouteInput<B, Q, P>) => Promise<unknown>;
  /** Extra Fastify route options (e.g. a body limit). */
  bodyLimit?: number;
}

export interface RouteInput<B, Q, P> {
  body: B;
  query: Q;
  params: P;
  auth: AuthContext;
  request: FastifyRequest;
  reply: FastifyReply;
}

export function defineRoute<B = unknown, Q = unknown, P = unknown>(spec: RouteSpec<B, Q, P>): RouteSpec<B, Q, P> {
  return spec;
}

/** Parses a request part, turning zod issues into VALIDATION_ERROR naming the field. */
export function parseInput<T>(schema: z.ZodType<T>, value: unknown, where: 'body' | 'query' | 'path'): T {
  const result = schema.safeParse(value ?? (where === 'body' ? undefined : {}));
  if (result.success) return result.data;
  throw validationError(result.error, where);
}

export function validationError(error: z.ZodError, where: string): ApiError {
  const issue = error.issues[0];
  const field = issue.path.join('.');
  if (!field) {
    const message = where === 'body' ? 'The request body must be a JSON object.' : `Invalid ${where}: ${issue.message}`;
    return new ApiError('VALIDATION_ERROR', message, { field: null });
  }
  return new ApiError('VALIDATION_ERROR', `Invalid field '${field}' in ${where}: ${describeIssue(issue)}`, { field });
}

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type' && issue.input === undefined) return 'it is required';
  if (issue.code === 'invalid_value' && 'values' in issue)
    return `expected one of ${issue.values.map(String).join(', ')}`;
  if (issue.code === 'unrecognized_keys') return `unknown field(s) ${issue.keys.join(', ')}`;
  return issue.message;
}

/** Registers routes on a Fastify instance; JSON bodies must be sent as application/json. */
export function registerRoutes(app: FastifyInstance, routes: AnyRoute[]): void {
  for (const spec of routes) {
    app.route({
      method: spec.method,
      url: spec.url,
      bodyLimit: spec.bodyLimit,
      config: { auth: spec.auth, rateBucket: spec.rateBucket },
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

function isJson(request: FastifyRequest): boolean {
  const type = request.headers['content-type'];
  return typeof type === 'string' && /^application\/(.+\+)?json\b/i.test(type);
}
