import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyReply } from 'fastify';
import { ApiError } from '../../domain/errors.ts';
import { MAX_PARAM_LENGTH, paramTooLongError } from '../../routing/param-length.ts';
import { defineRoute } from '../../routing/route.ts';

/** Where `npm run build:web` writes the front end. */
export const DEFAULT_WEB_DIR = fileURLToPath(new URL('../../../web/dist/', import.meta.url));

/**
 * No inline script anywhere and no JavaScript eval; `'wasm-unsafe-eval'` lets the player's tempo
 * and pitch worklet compile its WebAssembly (web/src/player/stretch.ts), which is all it allows.
 * Media may come from blob: URLs (the mix the player renders). `blobOrigins` are where signed
 * download links point when they are not this site (S3 storage): the player plays and fetches
 * stems from there.
 */
export function dashboardCsp(blobOrigins: readonly string[] = []): string {
  const media = ["'self'", ...blobOrigins].join(' ');
  return (
    `default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data: https:; media-src ${media} blob:; ` +
    `connect-src ${media}; object-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'`
  );
}

export const DASHBOARD_CSP = dashboardCsp();

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
};

/** Paths that belong to the API: never the SPA, always the JSON 404. */
const API_PATHS = /^\/(v1|api|docs|dashboard\/api)(\/|$)/;

const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Stemforge</title></head>
<body><h1>Stemforge</h1>
<p>The dashboard has not been built. Run <code>npm run build:web</code> (or <code>npm ci</code>, which runs it) and reload.</p>
<p>The API is at <a href="/v1/openapi.json">/v1</a>; its reference is at <a href="/docs">/docs</a>.</p>
</body></html>
`;

/**
 * Serves the dashboard (a single-page app) from `webDir` at the site root: files by path, and
 * index.html for any other path without an extension (client-side routes such as /jobs/123).
 * API prefixes keep their JSON 404s. Without a build, `/` says how to make one.
 */
export function pageRoutes(webDir: string, csp: string) {
  const root = resolve(webDir);
  const PAGE_HEADERS = {
    'content-security-policy': csp,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'same-origin',
  };
  const sendIndex = async (reply: FastifyReply) => {
    const html = await readFile(join(root, 'index.html')).catch(() => null);
    reply.headers({ ...PAGE_HEADERS, 'cache-control': 'no-cache' }).type('text/html; charset=utf-8');
    return html ? reply.send(html) : reply.code(503).send(NOT_BUILT);
  };
  const serve = async (url: string, reply: FastifyReply) => {
    const [path = ''] = url.split('?', 1);
    if (API_PATHS.test(path)) {
      // An API route whose id is over the router's limit lands here (the router falls back to
      // this wildcard): answer as the router itself would.
      if (path.split('/').some((part) => part.length > MAX_PARAM_LENGTH)) throw paramTooLongError();
      throw new ApiError('NOT_FOUND', `No route GET ${path}.`);
    }
    let decoded: string;
    try {
      decoded = decodeURIComponent(path);
    } catch {
      throw new ApiError('NOT_FOUND', 'No such file.');
    }
    const ext = extname(decoded).toLowerCase();
    if (!ext) return sendIndex(reply);
    const file = resolve(root, `.${decoded}`);
    const info = file.startsWith(root + sep) ? await stat(file).catch(() => null) : null;
    if (!info?.isFile()) throw new ApiError('NOT_FOUND', 'No such file.');
    // Built assets carry a content hash in their names: cache them for good.
    const cache = decoded.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache';
    reply.headers({ ...PAGE_HEADERS, 'cache-control': cache, 'content-length': String(info.size) });
    return reply.type(TYPES[ext] ?? 'application/octet-stream').send(createReadStream(file));
  };
  return [
    defineRoute({
      method: 'GET',
      url: '/*',
      summary: 'The dashboard: its built files, and index.html for its client-side routes',
      tag: 'Dashboard',
      auth: 'none',
      documented: false,
      status: 200,
      response: null,
      handler: ({ request, reply }) => serve(request.url, reply),
    }),
  ];
}
