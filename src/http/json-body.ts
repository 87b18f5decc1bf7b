import type { FastifyInstance } from 'fastify';
import { ApiError } from '../domain/errors.ts';

/** Deeper JSON is refused before any code walks it: no contract shape nests beyond a few levels. */
export const MAX_JSON_DEPTH = 32;

/** A key that would reach an object's prototype if a later merge copied it (`constructor` only with `prototype`). */
function isPrototypeKey(key: string, value: unknown): boolean {
  if (key === '__proto__') return true;
  return key === 'constructor' && value !== null && typeof value === 'object' && Object.hasOwn(value, 'prototype');
}

/**
 * JSON text is UTF-8 (RFC 8259): bytes that are not are refused, not replaced by U+FFFD (which
 * would store something the client never sent). A BOM is kept, so JSON.parse refuses it as before.
 */
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The JSON body parser of every route: the body decoded as strict UTF-8, `JSON.parse` (which is not recursive in V8), then one
 * iterative walk that refuses nesting deeper than MAX_JSON_DEPTH and prototype keys, each with a
 * message that says what is wrong. So no later recursive code (a size check, a hash, zod) can
 * overflow the stack, and `__proto__` is not reported as "not valid JSON" when it is.
 */
export function installJsonParser(app: FastifyInstance): void {
  app.removeContentTypeParser(['application/json']);
  app.addContentTypeParser(/^application\/(.+\+)?json\b/i, { parseAs: 'buffer' }, (_req, body, done) => {
    let text: string;
    try {
      text = UTF8.decode(body as Buffer);
    } catch {
      done(new ApiError('INVALID_JSON', 'The request body is not valid UTF-8; JSON must be sent as UTF-8.'), undefined);
      return;
    }
    if (text.trim() === '') {
      done(new ApiError('INVALID_JSON', 'The request body is empty; send a JSON object.'), undefined);
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      done(new ApiError('INVALID_JSON', `The request body is not valid JSON: ${(err as Error).message}`), undefined);
      return;
    }
    try {
      checkJsonShape(value);
    } catch (err) {
      done(err as Error, undefined);
      return;
    }
    done(null, value);
  });
}

/** Throws VALIDATION_ERROR naming the place of the first too-deep value or forbidden key. */
export function checkJsonShape(root: unknown): void {
  const stack: Array<{ value: unknown; depth: number; path: string }> = [{ value: root, depth: 0, path: '' }];
  while (stack.length > 0) {
    const { value, depth, path } = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) {
      throw new ApiError(
        'VALIDATION_ERROR',
        `The JSON body nests deeper than ${MAX_JSON_DEPTH} levels${path ? ` (at '${path.slice(0, 80)}')` : ''}.`,
        { field: path.split('.')[0] || null },
      );
    }
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) stack.push({ value: value[i], depth: depth + 1, path: `${path}[${i}]` });
      continue;
    }
    for (const key of Object.keys(value)) {
      const at = path ? `${path}.${key}` : key;
      if (isPrototypeKey(key, (value as Record<string, unknown>)[key])) {
        throw new ApiError('VALIDATION_ERROR', `The key '${key}' is not allowed in a JSON body (at '${at}').`, {
          field: at,
        });
      }
      stack.push({ value: (value as Record<string, unknown>)[key], depth: depth + 1, path: at });
    }
  }
}
