import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { ApiError } from '../domain/errors.ts';
import { parseInput } from './parse-input.ts';
import type { AuthContext } from './request-context.ts';
import { type AnyRoute, isIdempotent, methodsOf, type RouteInput } from './route.ts';

/**
 * Registers routes on a Fastify instance, the one way every route of the site is registered. JSON
 * routes go on the instance itself (JSON bodies must be sent as application/json); `stream` routes
 * share one encapsulated scope where any Content-Type reaches the handler unread; each `multipart`
 * route gets a scope holding @fastify/multipart with its limits (no other route parses multipart).
 */
export function registerRoutes(app: FastifyInstance, routes: readonly AnyRoute[]): void {
  const streams: AnyRoute[] = [];
  for (const spec of routes) {
    const mode = spec.bodyMode ?? 'json';
    if (mode === 'json') app.route(fastifyRoute(spec));
    else if (mode === 'stream') streams.push(spec);
    else {
      app.register(async (scope) => {
        // Every Content-Type reaches the handler unread; the handler refuses what is not multipart.
        scope.removeAllContentTypeParsers();
        scope.addContentTypeParser('*', (_req, _payload, done) => done(null));
        await scope.register(multipart, { limits: mode.multipart });
        scope.route(fastifyRoute(spec));
      });
    }
  }
  if (streams.length > 0) {
    app.register(async (scope) => {
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', (_req, payload, done) => done(null, payload));
      for (const spec of streams) scope.route(fastifyRoute(spec));
    });
  }
}

function fastifyRoute(spec: AnyRoute): RouteOptions {
  const methods = methodsOf(spec);
  return {
    method: [...methods],
    url: spec.url,
    bodyLimit: spec.bodyLimit,
    // A route that lists HEAD answers it itself; otherwise Fastify's automatic HEAD for a GET stays.
    ...(methods.length > 1 && methods.includes('HEAD') ? { exposeHeadRoute: false } : {}),
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
        query: spec.query ? parsePart(spec, spec.query, request.query, 'query') : undefined,
        params: spec.params ? parsePart(spec, spec.params, request.params, 'path') : undefined,
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
  };
}

function parsePart(spec: AnyRoute, schema: NonNullable<AnyRoute['query']>, value: unknown, where: 'query' | 'path') {
  if (!spec.invalidInput) return parseInput(schema, value, where);
  const parsed = schema.safeParse(value ?? {});
  if (!parsed.success) throw spec.invalidInput();
  return parsed.data;
}

function isJson(request: FastifyRequest): boolean {
  const type = request.headers['content-type'];
  return typeof type === 'string' && /^application\/(.+\+)?json\b/i.test(type);
}
