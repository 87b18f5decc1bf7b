/**
 * The rules for text we store and show (docs/text.md).
 *
 * Storable: every string a request carries (body, query, path) must be well-formed Unicode without
 * NUL. PostgreSQL's `text` refuses U+0000 outright and a lone UTF-16 surrogate has no UTF-8 form
 * (the driver would store U+FFFD in its place), so both are refused with a 400 before any query, on
 * SQLite too: the two databases answer alike.
 *
 * Plain: text a person reads (emails, names, notes, addresses, file names) also carries no
 * character that is invisible or moves what follows it: control characters (Unicode Cc: C0, DEL,
 * C1), format characters (Cf: the bidi controls U+200E/F, U+202A-E, U+2066-9 and U+061C, the
 * zero-width U+200B-D, U+2060 and U+FEFF, soft hyphen, tags) and the line and paragraph separators
 * U+2028/9. Typed text is refused (400, naming the field); a file name, which comes from a disk or a
 * remote server rather than a keyboard, has them stripped (`cleanFileName`).
 */
const UNSAFE = /[\p{Cc}\p{Cf}\u2028\u2029]/u;
/** A UTF-16 surrogate without its pair. */
export const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const UNSAFE_ALL = /[\p{Cc}\p{Cf}\u2028\u2029]/gu;

/** Why a string cannot be stored as text, or null when it can. */
export function unstorableReason(value: string): string | null {
  if (value.includes('\u0000')) return 'must not contain NUL (U+0000) characters';
  if (value.search(LONE_SURROGATE) !== -1) return 'must be well-formed Unicode (it holds a lone surrogate)';
  return null;
}

/** Whether text holds a control, format (bidi, zero-width) or line-separator character. */
export function hasUnsafeText(value: string): boolean {
  return UNSAFE.test(value);
}

/** The text without its control, format and line-separator characters. */
export function stripUnsafeText(value: string): string {
  return value.replace(UNSAFE_ALL, '');
}

export const UNSAFE_TEXT_MESSAGE = 'must not contain control, bidi, zero-width or other invisible characters';

/** An email address as accounts keep it: one @, no blanks, nothing invisible. */
export function isEmailAddress(value: string): boolean {
  return /^[^\s@]+@[^\s@]+$/.test(value) && !hasUnsafeText(value);
}
