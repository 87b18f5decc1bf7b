/**
 * What the browser can tell of a chosen file before anything is uploaded: its duration (its
 * metadata, through an <audio> element on a blob: URL, which the CSP's media-src allows), for the
 * cost; and whether it decodes as audio at all, so that a file of random bytes named .mp3 is
 * flagged before it is offered to Start. The server measures the decoded length itself and bills it.
 */
export function fileDuration(file: File): Promise<number | null> {
  return new Promise((resolve) => {
    const url = URL.createObjectURL(file);
    const audio = new Audio();
    const done = (value: number | null) => {
      clearTimeout(timer);
      audio.removeAttribute('src');
      URL.revokeObjectURL(url);
      resolve(value);
    };
    const timer = setTimeout(() => done(null), 10_000);
    audio.preload = 'metadata';
    audio.onloadedmetadata = () => done(Number.isFinite(audio.duration) ? audio.duration : null);
    audio.onerror = () => done(null);
    audio.src = url;
  });
}

/** Formats every browser decodes: a file named so that does not decode is not audio. */
const BROWSER_FORMATS = /\.(mp3|wav|flac|ogg|oga|opus|m4a|aac|mp4|webm)$/i;
/** The start of a file decoded first: enough for any frame-based format, and cheap. */
const HEAD_BYTES = 2 * 1024 * 1024;
/** Past this, a file whose start did not decode is not decoded whole (memory): the server checks it. */
const WHOLE_LIMIT = 200 * 1024 * 1024;

const decodes = async (bytes: ArrayBuffer): Promise<boolean> => {
  try {
    const ctx = new OfflineAudioContext(1, 1, 44_100);
    const buffer = await ctx.decodeAudioData(bytes);
    return buffer.length > 0;
  } catch {
    return false;
  }
};

/**
 * Whether the file decodes as audio here: its first 2 MB, else (a format whose index sits at the
 * end, such as some M4A files) the whole file. Null when the browser's word says nothing: a format
 * browsers do not decode (AIFF, WMA, ...), which the server may still read.
 */
export async function decodesAsAudio(file: File): Promise<boolean | null> {
  if (!BROWSER_FORMATS.test(file.name)) return null;
  if (await decodes(await file.slice(0, HEAD_BYTES).arrayBuffer())) return true;
  if (file.size <= HEAD_BYTES) return false;
  if (file.size > WHOLE_LIMIT) return null;
  return decodes(await file.arrayBuffer());
}
