import { z } from 'zod';
import { errorCatalog } from '../domain/errors.ts';
import { ErrorBody } from '../contract/common.ts';
import { DOCS_HTML, docsHeaders } from './docs-page.ts';
import { type AnyRoute, defineRoute } from './route.ts';

const AUTH_ERRORS = ['MISSING_API_KEY', 'INVALID_API_KEY', 'API_KEY_REVOKED', 'RATE_LIMIT_EXCEEDED'] as const;

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): unknown {
  return z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' });
}

/**
 * OpenAPI 3.1 document generated from the same zod schemas that validate requests and responses.
 * The server is the site URL: paths carry their `/v1` prefix (one route lives outside it).
 */
export function buildOpenApi(routes: AnyRoute[], serverUrl: string, version: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    if (r.url === '/v1/openapi.json' || r.url === '/docs') continue;
    const path = r.url.replace(/:(\w+)/g, '{$1}');
    const parameters: unknown[] = [];
    for (const [where, schema] of [
      ['path', r.params],
      ['query', r.query],
    ] as const) {
      if (!schema || !(schema instanceof z.ZodObject)) continue;
      for (const [name, field] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
        parameters.push({
          name,
          in: where,
          required: where === 'path' || !field.safeParse(undefined).success,
          schema: jsonSchema(field, 'input'),
        });
      }
    }
    const codes = new Set<string>([...(r.auth === 'apiKey' ? AUTH_ERRORS : []), ...(r.errors ?? [])]);
    const responses: Record<string, unknown> = {
      [r.status]: r.response
        ? { description: 'Success', content: { 'application/json': { schema: jsonSchema(r.response, 'output') } } }
        : { description: 'Success (a file or redirect)' },
    };
    for (const code of codes) {
      const status = String(errorCatalog[code as keyof typeof errorCatalog].status);
      responses[status] ??= {
        description: '',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      };
      const entry = responses[status] as { description: string };
      entry.description = entry.description ? `${entry.description}, ${code}` : code;
    }
    paths[path] ??= {};
    paths[path][r.method.toLowerCase()] = {
      summary: r.summary,
      ...(r.description ? { description: r.description } : {}),
      tags: [r.tag],
      ...(r.auth === 'apiKey' ? { security: [{ bearerAuth: [] }] } : { security: [] }),
      ...(parameters.length ? { parameters } : {}),
      ...(r.body
        ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(r.body, 'input') } } } }
        : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Stemforge API',
      version,
      description:
        'Stem separation and voice cleaning. Errors answer `{"error":{"code","message"}}`; see the README for the error codes.',
    },
    servers: [{ url: serverUrl }],
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'API key: sk_live_...' } },
      schemas: { Error: jsonSchema(ErrorBody, 'output') },
    },
    security: [{ bearerAuth: [] }],
    paths,
  };
}

/** `GET /v1/openapi.json` and the browsable `/docs` page (Swagger UI served locally, see `docs-page.ts`). */
export function openApiRoutes(getRoutes: () => AnyRoute[], serverUrl: string, version: string) {
  let doc: ReturnType<typeof buildOpenApi> | undefined;
  const document = () => (doc ??= buildOpenApi(getRoutes(), serverUrl, version));
  return [
    defineRoute({
      method: 'GET',
      url: '/v1/openapi.json',
      summary: 'OpenAPI 3.1 document',
      tag: 'Operations',
      auth: 'none',
      status: 200,
      response: null,
      handler: async () => document(),
    }),
    defineRoute({
      method: 'GET',
      url: '/docs',
      summary: 'API reference (HTML)',
      tag: 'Operations',
      auth: 'none',
      status: 200,
      response: null,
      handler: async ({ reply }) => reply.headers(docsHeaders).type('text/html; charset=utf-8').send(DOCS_HTML),
    }),
  ];
}
