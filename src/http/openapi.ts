import { z } from 'zod';
import { errorCatalog } from '../domain/errors.ts';
import { ErrorBody } from './schemas/common.ts';
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

/** `GET /v1/openapi.json` and the browsable `/docs` page (server-rendered; no assets fetched from elsewhere). */
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
      handler: async ({ reply }) => reply.type('text/html; charset=utf-8').send(renderDocs(document())),
    }),
  ];
}

const esc = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

function renderDocs(doc: ReturnType<typeof buildOpenApi>): string {
  const sections = Object.entries(doc.paths)
    .flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => {
        const o = op as {
          summary: string;
          description?: string;
          tags: string[];
          requestBody?: unknown;
          responses: Record<string, { description: string; content?: unknown }>;
        };
        const responses = Object.entries(o.responses)
          .map(([status, r]) => `<li><code>${status}</code> ${esc(r.description)}</li>`)
          .join('');
        const body = o.requestBody
          ? `<details><summary>Request body schema</summary><pre>${esc(JSON.stringify((o.requestBody as { content: { 'application/json': { schema: unknown } } }).content['application/json'].schema, null, 2))}</pre></details>`
          : '';
        const ok = Object.values(o.responses)[0]?.content as { 'application/json'?: { schema: unknown } } | undefined;
        const resp = ok?.['application/json']
          ? `<details><summary>Response schema</summary><pre>${esc(JSON.stringify(ok['application/json'].schema, null, 2))}</pre></details>`
          : '';
        return `<section id="${esc(method + path)}"><h3><span class="m ${method}">${method.toUpperCase()}</span> <code>${esc(path)}</code></h3><p>${esc(o.summary)}${o.description ? ` — ${esc(o.description)}` : ''}</p>${body}${resp}<ul>${responses}</ul></section>`;
      }),
    )
    .join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Stemforge API reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font-family:system-ui,sans-serif;max-width:960px;margin:2rem auto;padding:0 1rem;color:#1d2330}
h3{margin-bottom:.2rem}.m{display:inline-block;min-width:4.5rem;padding:2px 6px;border-radius:4px;color:#fff;font-size:.8rem;text-align:center}
.get{background:#2d7d46}.post{background:#2856a8}.put{background:#8a5a00}.delete{background:#a82828}
section{border-bottom:1px solid #e3e6ea;padding:.6rem 0}pre{background:#f5f6f8;padding:.6rem;overflow:auto;font-size:.8rem}</style></head>
<body><h1>Stemforge API <small>${esc(doc.info.version)}</small></h1>
<p>Site <code>${esc(doc.servers[0].url)}</code>; API base <code>${esc(doc.servers[0].url)}/v1</code>. Authenticate with <code>Authorization: Bearer sk_live_…</code>.
Machine-readable: <a href="/v1/openapi.json">/v1/openapi.json</a> (OpenAPI 3.1).</p>
${sections}</body></html>`;
}
