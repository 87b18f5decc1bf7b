import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { ApiError } from '../../domain/errors.ts';
import { type AnyRoute, defineRoute } from '../../routing/route.ts';
import { buildOpenApi } from '../openapi-document.ts';

/**
 * The `/docs` page: Swagger UI (the `swagger-ui-dist` package, served from this process; nothing is
 * fetched from elsewhere) rendering `/v1/openapi.json`, with "Try it out" against this server.
 * See docs/architecture.md ("Libraries we chose") for why a renderer rather than our own HTML.
 */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

// Swagger UI styles some elements inline; scripts stay same-origin only.
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

const INIT_JS = `window.addEventListener('load', () => {
  window.ui = SwaggerUIBundle({
    url: '/v1/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    persistAuthorization: false,
    tryItOutEnabled: false,
  });
});
`;

const DOCS_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Stemforge API reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="/docs/assets/favicon-32x32.png">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
<noscript><p>This page needs JavaScript. The machine-readable reference is <a href="/v1/openapi.json">/v1/openapi.json</a> (OpenAPI 3.1).</p></noscript>
<div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/init.js"></script>
</body>
</html>
`;

const distDir = () => dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** Headers every `/docs` answer carries. */
const docsHeaders = { 'content-security-policy': CSP, 'x-content-type-options': 'nosniff' };

/**
 * `GET /v1/openapi.json`, the browsable `/docs` page (Swagger UI served locally) and its assets. The
 * document is built once, on first request, from `getRoutes()`: every documented route of the API.
 */
export function docsRoutes(getRoutes: () => AnyRoute[], serverUrl: string, version: string) {
  let doc: ReturnType<typeof buildOpenApi> | undefined;
  const document = () => (doc ??= buildOpenApi(getRoutes(), serverUrl, version));
  const cache = new Map<string, Buffer>();
  const base = { tag: 'Operations', auth: 'none' as const, documented: false, status: 200, response: null };
  return [
    defineRoute({
      ...base,
      method: 'GET',
      url: '/v1/openapi.json',
      summary: 'OpenAPI 3.1 document',
      handler: async () => document(),
    }),
    defineRoute({
      ...base,
      method: 'GET',
      url: '/docs',
      summary: 'API reference (HTML)',
      handler: async ({ reply }) => reply.headers(docsHeaders).type('text/html; charset=utf-8').send(DOCS_HTML),
    }),
    defineRoute({
      ...base,
      method: 'GET',
      url: '/docs/assets/:name',
      summary: "The API reference's files (Swagger UI) and its start-up script",
      params: z.object({ name: z.string() }),
      handler: async ({ params: { name }, reply }) => {
        reply.headers({ ...docsHeaders, 'cache-control': 'public, max-age=86400' });
        if (name === 'init.js') return reply.type('text/javascript; charset=utf-8').send(INIT_JS);
        const type = ASSETS[name];
        if (!type) throw new ApiError('NOT_FOUND', 'No such documentation asset.');
        let body = cache.get(name);
        if (!body) {
          body = await readFile(join(distDir(), name));
          cache.set(name, body);
        }
        return reply.type(type).send(body);
      },
    }),
  ];
}
