import { z } from 'zod';
import { errorCatalog } from '../domain/errors.ts';
import { ErrorBody } from '../contract/common.ts';
import { type AnyRoute, isIdempotent, methodsOf } from '../routing/route.ts';

const AUTH_ERRORS = [
  'MISSING_API_KEY',
  'INVALID_API_KEY',
  'API_KEY_REVOKED',
  'ACCOUNT_DISABLED',
  'RATE_LIMIT_EXCEEDED',
] as const;
const IDEMPOTENCY_ERRORS = ['VALIDATION_ERROR', 'IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_KEY_IN_PROGRESS'] as const;

/**
 * JSON Schemas for one document. zod puts schemas that carry an id (`.meta({ id })`) under the
 * converted schema's own `$defs` and refers to them as `#/$defs/X`, which inside an OpenAPI
 * document resolves against the document root, where there is no `$defs`. So every `$defs` entry
 * moves to `components.schemas` and every reference is rewritten to point there.
 */
class SchemaSet {
  readonly components: Record<string, unknown> = {};

  convert(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
    const out = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Record<
      string,
      unknown
    >;
    delete out.$schema;
    const defs = (out.$defs ?? {}) as Record<string, unknown>;
    delete out.$defs;
    // An id converted both as input and as output may differ (defaults): the second one is suffixed.
    const names = new Map<string, string>();
    for (const [id, def] of Object.entries(defs)) {
      const existing = this.components[id];
      const name = existing === undefined || sameJson(existing, def, names) ? id : `${id}${capitalise(io)}`;
      names.set(id, name);
    }
    for (const [id, def] of Object.entries(defs)) this.components[names.get(id)!] ??= rewriteRefs(def, names);
    return rewriteRefs(out, names) as Record<string, unknown>;
  }
}

function rewriteRefs(value: unknown, names: Map<string, string>): unknown {
  if (Array.isArray(value)) return value.map((v) => rewriteRefs(v, names));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === '$ref' && typeof v === 'string' && v.startsWith('#/$defs/')) {
      const id = v.slice('#/$defs/'.length);
      out[k] = `#/components/schemas/${names.get(id) ?? id}`;
    } else out[k] = rewriteRefs(v, names);
  }
  return out;
}

function sameJson(a: unknown, b: unknown, names: Map<string, string>): boolean {
  return JSON.stringify(a) === JSON.stringify(rewriteRefs(b, names));
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

const IDEMPOTENCY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes a retry safe: the same key with the same request replays the first answer (header Idempotent-Replayed: true) and creates nothing; kept 24 hours per account. 1-255 visible ASCII characters.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
};

/**
 * OpenAPI 3.1 document generated from the same zod schemas that validate requests and responses.
 * The server is the site URL: paths carry their `/v1` prefix (one route lives outside it).
 */
export function buildOpenApi(routes: AnyRoute[], serverUrl: string, version: string) {
  const schemas = new SchemaSet();
  const jsonSchema = (schema: z.ZodType, io: 'input' | 'output') => schemas.convert(schema, io);
  // Registers `Error` in components; its reference is what every error response uses.
  jsonSchema(ErrorBody, 'output');
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    if (r.documented === false) continue;
    // `:id` -> `{id}`; a trailing wildcard (param `*`) is the rest of the path, named `path` here.
    const path = r.url.replace(/:(\w+)/g, '{$1}').replace(/\*$/, '{path}');
    const parameters: unknown[] = [];
    for (const [where, schema] of [
      ['path', r.params],
      ['query', r.query],
    ] as const) {
      if (!schema || !(schema instanceof z.ZodObject)) continue;
      for (const [name, field] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
        parameters.push({
          name: name === '*' ? 'path' : name,
          in: where,
          required: where === 'path' || !field.safeParse(undefined).success,
          schema: jsonSchema(field, 'input'),
        });
      }
    }
    const idempotent = isIdempotent(r);
    if (idempotent) parameters.push(IDEMPOTENCY_PARAMETER);
    const codes = new Set<string>([
      ...(r.auth === 'apiKey' ? AUTH_ERRORS : []),
      ...(r.admin ? (['ADMIN_REQUIRED'] as const) : []),
      ...(r.errors ?? []),
      ...(idempotent ? IDEMPOTENCY_ERRORS : []),
    ]);
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
    const operation = {
      summary: r.summary,
      ...(r.description ? { description: r.description } : {}),
      tags: [r.tag],
      ...(r.auth === 'apiKey' ? { security: [{ bearerAuth: [] }] } : { security: [] }),
      ...(parameters.length ? { parameters } : {}),
      ...(r.body
        ? {
            requestBody: {
              required: !r.body.safeParse(undefined).success,
              content: { 'application/json': { schema: jsonSchema(r.body, 'input') } },
            },
          }
        : r.documentedBody
          ? {
              requestBody: {
                required: true,
                content: { [r.documentedBody.mediaType]: { schema: r.documentedBody.schema } },
              },
            }
          : {}),
      responses,
    };
    paths[path] ??= {};
    for (const method of methodsOf(r)) paths[path][method.toLowerCase()] = operation;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Stemforge API',
      version,
      description:
        'Stem separation and voice cleaning. Errors answer `{"error":{"code","message"}}`; docs/errors.md lists the error codes.',
    },
    servers: [{ url: serverUrl }],
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'API key: sk_live_...' } },
      schemas: schemas.components,
    },
    security: [{ bearerAuth: [] }],
    paths,
  };
}
