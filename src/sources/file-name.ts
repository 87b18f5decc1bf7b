/**
 * File names suggested by remote servers, made safe to show and to use as a download name.
 * Never used as a path on our disk: the fetcher writes to a path the caller chose.
 */

import { cleanFileName as sanitizeFileName } from '../domain/formats.ts';

/** Remote names go through the same cleaning as every stored file name (null when nothing is left). */
export { sanitizeFileName };

function decodeSafely(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * The file name from a Content-Disposition header (RFC 6266): `filename*` (RFC 8187 ext-value,
 * charset'lang'pct-encoded) wins over `filename`, as the RFC asks of recipients.
 */
export function fileNameFromContentDisposition(header: string | undefined): string | null {
  if (!header) return null;
  const extended = /filename\*\s*=\s*([^;]+)/i.exec(header);
  if (extended) {
    const m = /^\s*([\w!#$%&+^`{}~-]*)'[^']*'(.*)$/.exec((extended[1] ?? '').trim());
    const [, charsetText, valueText] = m ?? [];
    if (charsetText !== undefined && valueText !== undefined) {
      const charset = charsetText.toLowerCase();
      const value = valueText.trim();
      const decoded =
        charset === 'iso-8859-1'
          ? Buffer.from(
              value.replace(/%([0-9a-f]{2})/gi, (_, h) => String.fromCharCode(parseInt(h, 16))),
              'latin1',
            ).toString('latin1')
          : decodeSafely(value);
      const name = sanitizeFileName(decoded);
      if (name) return name;
    }
  }
  const plain = /(?:^|;)\s*filename\s*=\s*("((?:[^"\\]|\\.)*)"|[^;]*)/i.exec(header);
  if (plain) {
    const value = plain[2] !== undefined ? plain[2].replace(/\\(.)/g, '$1') : (plain[1] ?? '');
    return sanitizeFileName(value.trim());
  }
  return null;
}

/** The last non-empty segment of a URL's path, percent-decoded and sanitised. */
export function fileNameFromUrl(url: URL): string | null {
  const segments = url.pathname.split('/').filter(Boolean);
  const last = segments.at(-1);
  return last ? sanitizeFileName(decodeSafely(last)) : null;
}
