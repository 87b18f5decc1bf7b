import { unstorableReason } from '../domain/safe-text.ts';

/** A string (or an object key) of a request that cannot be stored as text, and where it is. */
export interface UnstorableText {
  /** `a.b[2]`; empty for the value itself (a whole query string or path parameter never is). */
  path: string;
  /** `must not ...` of the value, or `its name must not ...` of a key. */
  reason: string;
}

/**
 * The first string or key in a parsed request part (JSON body, query, path parameters) that
 * `unstorableReason` refuses: NUL, or a lone surrogate. Iterative, like the JSON body's own walk,
 * so no input can overflow the stack; run before the route's schema, so nothing (not even a
 * field a schema transforms or ignores) reaches a query with such text in it.
 */
export function findUnstorableText(root: unknown): UnstorableText | null {
  const stack: Array<{ value: unknown; path: string }> = [{ value: root, path: '' }];
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (typeof value === 'string') {
      const reason = unstorableReason(value);
      if (reason) return { path, reason };
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], path: `${path}[${i}]` });
      continue;
    }
    const keys = Object.keys(value);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i]!;
      const reason = unstorableReason(key);
      const at = path ? `${path}.${key}` : key;
      if (reason) return { path: at, reason: `its name ${reason}` };
      stack.push({ value: (value as Record<string, unknown>)[key], path: at });
    }
  }
  return null;
}
