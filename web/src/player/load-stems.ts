/**
 * Decoding four 4-minute stems takes seconds on a busy machine, and running it while a play is
 * pressed starves the browser's media pipeline, so the stems are fetched and decoded one at a time
 * (`loadStems`), and no decode begins while a streamed start or seek is under way (`settled`, see
 * `Streaming`).
 */

/**
 * Fetches and decodes the stems one at a time (the next one downloads while one decodes), each
 * decode waiting for `settled` so that it never competes with starting the streamed stems. Several
 * decodes at once finish sooner on an idle machine but leave a busy one no core to start playback.
 */
export async function loadStems(
  ctx: BaseAudioContext,
  stems: { name: string; url: string }[],
  onProgress: (done: number) => void,
  signal: AbortSignal,
  settled: () => Promise<void>,
): Promise<{ name: string; buffer: AudioBuffer }[]> {
  const download = async ({ name, url }: { name: string; url: string }) => {
    const res = await fetch(url, { signal, credentials: 'same-origin' });
    if (!res.ok) throw new Error(`Could not load ${name} (HTTP ${res.status}).`);
    return res.arrayBuffer();
  };
  const out: { name: string; buffer: AudioBuffer }[] = [];
  let next = stems[0] ? download(stems[0]) : null;
  for (const [i, stem] of stems.entries()) {
    const bytes = await next!;
    next = stems[i + 1] ? download(stems[i + 1]!) : null;
    // A rejected download waits here until its turn; keep it from being reported as unhandled.
    next?.catch(() => {});
    await settled();
    signal.throwIfAborted();
    out.push({ name: stem.name, buffer: await ctx.decodeAudioData(bytes) });
    onProgress(out.length);
  }
  return out;
}

/** Resolves once the element can play at its current position (or failed: it then stays silent). */
export function canPlay(m: HTMLMediaElement): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (m.error || (!m.seeking && m.readyState >= HTMLMediaElement.HAVE_FUTURE_DATA)) {
        for (const e of events) m.removeEventListener(e, check);
        resolve();
      }
    };
    const events = ['canplay', 'seeked', 'error'];
    for (const e of events) m.addEventListener(e, check);
    check();
  });
}
