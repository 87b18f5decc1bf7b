/**
 * A file's duration as the browser reads it (its metadata, through an <audio> element on a blob:
 * URL, which the CSP's media-src allows), for the cost shown before anything is uploaded; null when
 * the browser cannot tell. The server measures the decoded length itself and bills that.
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
