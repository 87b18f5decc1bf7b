import { LONE_SURROGATE, stripUnsafeText } from '../domain/safe-text.ts';

/**
 * `Content-Disposition: attachment` for a file name of any characters, per RFC 6266 section 4.3:
 * a quoted ASCII `filename` fallback for old clients plus `filename*` in the RFC 8187 (ex-5987)
 * `UTF-8''` encoding that current browsers prefer.
 */
export function attachmentDisposition(fileName: string): string {
  // A lone surrogate would make encodeURIComponent throw; a bidi control or an invisible character
  // would let a name show (and save) as another one ("\u202Egpj.zip" reads "piz.jpg").
  const name = stripUnsafeText(fileName.replace(LONE_SURROGATE, '\ufffd')).replace(/[/\\]/g, '_');
  // The quoted-string fallback: printable ASCII only, and no quote or backslash so it cannot end
  // the string early or rely on escapes that some clients ignore.
  const fallback = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e]|["\\%]/g, '_');
  return `attachment; filename="${fallback || 'download'}"; filename*=UTF-8''${encodeRfc8187(name || 'download')}`;
}

/** Percent-encodes everything outside RFC 8187's attr-char set. */
export function encodeRfc8187(value: string): string {
  return encodeURIComponent(value).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
