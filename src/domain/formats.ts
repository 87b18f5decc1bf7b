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
  return m ? m[1].toLowerCase() : '';
}

export function defaultContentType(fileName: string): string | null {
  return INPUT_FORMATS[extensionOf(fileName)] ?? null;
}

/** Content types a client may declare for an upload: audio types, webm/mp4 containers, or generic binary. */
export function isAcceptableContentType(type: string): boolean {
  return /^(audio\/[\w.+-]+|video\/(webm|mp4|ogg)|application\/octet-stream)$/i.test(type.split(';')[0].trim());
}

/** A file name safe to store and to put in Content-Disposition: no directories, no control characters. */
export function sanitizeFileName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const clean = base.replace(/[\u0000-\u001f\u007f"]/g, '').trim().slice(0, 200);
  return clean && clean !== '.' && clean !== '..' ? clean : 'audio';
}
