import { LONE_SURROGATE, stripUnsafeText } from './safe-text.ts';

/**
 * Input formats the service accepts, by file extension, with the Content-Type used when a client
 * does not name one. The extension only picks the default type: every file is probed by ffprobe
 * before it is accepted.
 */
export const INPUT_FORMATS: Record<string, string> = {
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  wave: 'audio/wav',
  flac: 'audio/flac',
  m4a: 'audio/mp4',
  mp4: 'audio/mp4',
  aac: 'audio/aac',
  ogg: 'audio/ogg',
  oga: 'audio/ogg',
  opus: 'audio/opus',
  webm: 'audio/webm',
  aiff: 'audio/aiff',
  aif: 'audio/aiff',
  wma: 'audio/x-ms-wma',
};

export function extensionOf(fileName: string): string {
  const m = /\.([A-Za-z0-9]{1,8})$/.exec(fileName.trim());
  return m?.[1]?.toLowerCase() ?? '';
}

export function defaultContentType(fileName: string): string | null {
  return INPUT_FORMATS[extensionOf(fileName)] ?? null;
}

/** Content types a client may declare for an upload: audio types, webm/mp4 containers, or generic binary. */
export function isAcceptableContentType(type: string): boolean {
  return /^(audio\/[\w.+-]+|video\/(webm|mp4|ogg)|application\/octet-stream)$/i.test(type.split(';', 1)[0]!.trim());
}

const MAX_FILE_NAME_LENGTH = 200;

/**
 * A file name made safe to store, show and put in Content-Disposition: strips directory parts
 * (both separators), the characters plain text never holds (`stripUnsafeText`: controls, bidi
 * controls, zero-width and other invisible characters) and lone surrogates, leading dots (hidden
 * files, "..") and surrounding blanks; replaces quotes and characters Windows refuses; shortens to
 * 200 characters keeping the extension. Null when nothing usable is left.
 */
export function cleanFileName(raw: string): string | null {
  let name = raw.split(/[/\\]/).pop() ?? '';
  name = stripUnsafeText(name.replace(LONE_SURROGATE, ''))
    .replace(/["<>:|?*]/g, '_')
    .trim()
    .replace(/^\.+/, '')
    .trim();
  if (!name) return null;
  if (name.length > MAX_FILE_NAME_LENGTH) {
    const dot = name.lastIndexOf('.');
    const ext = dot > 0 && name.length - dot <= 10 ? name.slice(dot) : '';
    name = name.slice(0, MAX_FILE_NAME_LENGTH - ext.length) + ext;
  }
  return name;
}

/** `cleanFileName`, with `audio` when nothing usable is left. */
export function sanitizeFileName(name: string): string {
  return cleanFileName(name) ?? 'audio';
}
