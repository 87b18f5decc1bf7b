import type { z } from 'zod';
import { ApiError } from '../domain/errors.ts';
import { LONE_SURROGATE } from '../domain/safe-text.ts';
import { findUnstorableText } from './storable-input.ts';

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
