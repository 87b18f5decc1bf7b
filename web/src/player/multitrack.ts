/**
 * One transport for several stems. Every decoded stem is an AudioBufferSourceNode started with the
 * same `when` and the same offset on one AudioContext clock, so the stems are sample-aligned after
 * every play, seek and loop change (HTMLMediaElements drift and seek independently; buffers do not).
 *
 * Decoding four 4-minute stems takes seconds on a busy machine, and running it while a play is
 * pressed starves the browser's media pipeline, so:
 * - the stems are fetched and decoded one at a time (`loadStems`), and no decode begins while a
 *   streamed start or seek is under way (`settled`);
 * - a play pressed before they are decoded streams them through media elements (HTTP Range), each
 *   routed by a MediaElementAudioSourceNode into the stem's own GainNode (mute/solo/volume apply).
 *   Starts and seeks pause every element, move them all, wait until each can play, and start them
 *   in one task; a watch every 100 ms re-aligns them when their positions spread by more than
 *   `MAX_SPREAD` and applies the loop;
 * - once decoded, a streaming play moves onto the buffers at the position reached: the buffers start
 *   at a context time a little ahead and the media are silenced by a gain step at that same time.
 */
export interface Track {
  name: string;
  url: string;
  /** Null until decoded; until then a play streams the stem through `media`. */
  buffer: AudioBuffer | null;
  media: HTMLAudioElement | null;
  /** media -> mediaGain -> gain: silences the media at the handover's exact context time. */
  mediaGain: GainNode | null;
  volume: number;
  muted: boolean;
  soloed: boolean;
  gain: GainNode;
  source: AudioBufferSourceNode | null;
  /** The context time and buffer offset this stem's current source was started with (for sync checks). */
  startedAt: number;
  startOffset: number;
}

export interface Loop {
  enabled: boolean;
  start: number;
  end: number;
}

/**
 * Streamed stems whose positions spread by more than this are re-aligned (the target is 50 ms).
 * Chromium moves a media element's currentTime in steps of 512 or 1024 frames (11.6 or 23.2 ms at
 * 44.1 kHz), so a spread read as at most 30 ms is under 46 ms in truth; more re-aligns them.
 */
export const MAX_SPREAD = 0.03;

/** The gain a stem gets: any solo silences the stems that are not soloed; mute silences. */
export function effectiveGain(track: Pick<Track, 'volume' | 'muted' | 'soloed'>, anySolo: boolean): number {
  if (anySolo) return track.soloed ? track.volume : 0;
  return track.muted ? 0 : track.volume;
}

export class Multitrack {
  readonly tracks: Track[];
  /** From the server's peaks until the stems are decoded, then the longest decoded stem. */
  duration: number;
  readonly loop: Loop;
  playing = false;
  private offset = 0;
  private startedAt = 0;
  private listeners = new Set<() => void>();

  /** True while playing through media elements (before the stems are decoded). */
  private streaming = false;
  /** Bumped by every pause, seek and restart: a streamed start that was overtaken gives up. */
  private epoch = 0;
  /** Set while streamed stems are being started or moved (see `settled`). */
  private starting: Promise<void> | null = null;
  private watch = 0;
  /** Largest spread between streamed stems seen since the last start or seek (seconds), and re-alignments. */
  spread = 0;
  resyncs = 0;

  constructor(
    readonly ctx: AudioContext,
    stems: { name: string; url: string }[],
    duration: number,
  ) {
    this.duration = duration;
    this.loop = { enabled: false, start: 0, end: this.duration };
    this.tracks = stems.map(({ name, url }) => {
      const gain = new GainNode(ctx);
      gain.connect(ctx.destination);
      return {
        name,
        url,
        buffer: null,
        media: null,
        mediaGain: null,
        volume: 1,
        muted: false,
        soloed: false,
        gain,
        source: null,
        startedAt: 0,
        startOffset: 0,
      };
    });
  }

  get decoded(): boolean {
    return this.tracks.every((t) => t.buffer !== null);
  }

  /** The decoded stems arrived: a streaming playback moves onto them at the position it reached. */
  setBuffers(buffers: { name: string; buffer: AudioBuffer }[]): void {
    for (const { name, buffer } of buffers) {
      const t = this.tracks.find((x) => x.name === name);
      if (t) t.buffer = buffer;
    }
    if (!this.decoded) return;
    const decoded = Math.max(...this.tracks.map((t) => t.buffer!.duration));
    if (this.loop.end === this.duration) this.loop.end = decoded;
    this.duration = decoded;
    if (!this.streaming) {
      this.changed();
      return;
    }
    if (this.starting) {
      // The media were not playing yet: start the buffers where they were going to start.
      this.stopMedia();
      this.playing = false;
      void this.play();
      return;
    }
    // Hand over at a context time a little ahead: the buffers start there at the position the media
    // will have reached, and a gain step at that same time silences the media.
    const lead = 0.05;
    const when = this.ctx.currentTime + lead;
    const at = Math.min(this.mediaTime() + lead, this.duration);
    this.clearWatch();
    this.streaming = false;
    this.epoch++;
    for (const t of this.tracks) t.mediaGain?.gain.setValueAtTime(0, when);
    const media = this.tracks.map((t) => t.media);
    setTimeout(() => {
      // Never played again: let go of their connections and buffered data.
      for (const m of media) {
        m?.pause();
        m?.removeAttribute('src');
        m?.load();
      }
    }, 300);
    this.playing = false;
    this.offset = at;
    void this.play(when);
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  private changed(): void {
    for (const l of this.listeners) l();
  }

  get position(): number {
    if (!this.playing) return this.offset;
    if (this.streaming) return this.starting ? this.offset : Math.min(this.mediaTime(), this.duration);
    let p = this.offset + Math.max(0, this.ctx.currentTime - this.startedAt);
    const { enabled, start, end } = this.loop;
    if (enabled && this.offset < end && p >= end) p = start + ((p - end) % Math.max(0.01, end - start));
    return Math.min(p, this.duration);
  }

  /** Where the streamed stems are (the first stem's element leads; the watch keeps the others near). */
  private mediaTime(): number {
    return this.tracks[0]?.media?.currentTime ?? this.offset;
  }

  /** Each stem's own position now (streamed stems can differ by up to `MAX_SPREAD`). */
  stemTime(t: Track): number {
    if (this.playing && this.streaming && !this.starting && t.media) return t.media.currentTime;
    return this.position;
  }

  /** 'media' while streaming, 'buffers' once decoded. */
  get mode(): 'media' | 'buffers' {
    return this.decoded ? 'buffers' : 'media';
  }

  /**
   * Resolves when no streamed start or seek is under way (the decoder waits for this), or after 2 s
   * (an element that never loads must not hold the decoding back for good).
   */
  async settled(): Promise<void> {
    if (this.starting) await Promise.race([this.starting, new Promise((r) => setTimeout(r, 2000))]);
  }

  /** `at`: the context time to start at (the handover picks it); by default a few ms ahead. */
  async play(at?: number): Promise<void> {
    if (this.playing) return;
    if (this.offset >= this.duration - 0.01) this.offset = this.loop.enabled ? this.loop.start : 0;
    if (!this.decoded) return this.stream();
    // A few milliseconds ahead so every start() lands on the same render quantum.
    const when = at ?? this.ctx.currentTime + 0.02;
    for (const t of this.tracks) {
      const src = new AudioBufferSourceNode(this.ctx, { buffer: t.buffer! });
      if (this.loop.enabled) {
        src.loop = true;
        src.loopStart = this.loop.start;
        src.loopEnd = this.loop.end;
      }
      src.connect(t.gain);
      src.start(when, this.offset);
      t.source = src;
      t.startedAt = when;
      t.startOffset = this.offset;
    }
    const first = this.tracks[0]?.source;
    if (first) {
      first.onended = () => {
        // Natural end (not a stop() from pause/seek, which clears `source` first).
        if (this.tracks[0]?.source === first) {
          this.stopSources();
          this.playing = false;
          this.offset = 0;
          this.changed();
        }
      };
    }
    this.startedAt = when;
    this.playing = true;
    this.changed();
    if (this.ctx.state !== 'running') await this.ctx.resume();
  }

  /**
   * Plays the stems through media elements from `offset`: pauses them, moves them all there, waits
   * until every one can play, then starts them in one task (loop points apply through the watch).
   */
  private async stream(): Promise<void> {
    const epoch = ++this.epoch;
    this.clearWatch();
    const media = this.tracks.map((t) => {
      if (!t.media) {
        t.media = new Audio(t.url);
        t.media.preload = 'auto';
        t.mediaGain = new GainNode(this.ctx);
        t.mediaGain.connect(t.gain);
        this.ctx.createMediaElementSource(t.media).connect(t.mediaGain);
        t.media.onended = () => {
          if (this.streaming && t === this.tracks[0]) this.ended();
        };
      }
      t.media.pause();
      t.media.currentTime = this.offset;
      return t.media;
    });
    this.streaming = true;
    this.playing = true;
    this.spread = 0;
    let done = () => {};
    this.starting = new Promise((resolve) => {
      done = resolve;
    });
    this.changed();
    try {
      if (this.ctx.state !== 'running') await this.ctx.resume();
      await Promise.all(media.map(canPlay));
      if (epoch !== this.epoch) return;
      // One task: every element is told to play before any of them renders.
      await Promise.all(media.map((m) => m.play().catch(() => {})));
    } finally {
      if (epoch === this.epoch) this.starting = null;
      done();
    }
    if (epoch !== this.epoch) return;
    this.watch = window.setInterval(() => this.check(), 100);
    this.changed();
  }

  /** Every 100 ms while streaming: the loop, and re-aligning stems that drifted apart. */
  private check(): void {
    if (!this.streaming || this.starting) return;
    const times = this.tracks.flatMap((t) => (t.media && !t.media.paused ? [t.media.currentTime] : []));
    const spread = Math.max(...times) - Math.min(...times);
    this.spread = Math.max(this.spread, spread);
    const p = this.position;
    if (this.loop.enabled && this.offset < this.loop.end && p >= this.loop.end) {
      this.restartAt(this.loop.start);
    } else if (spread > MAX_SPREAD) {
      this.resyncs++;
      this.restartAt(p);
    }
  }

  private restartAt(seconds: number): void {
    this.offset = seconds;
    void this.stream();
  }

  private ended(): void {
    this.stopMedia();
    this.playing = false;
    this.offset = 0;
    this.changed();
  }

  private clearWatch(): void {
    clearInterval(this.watch);
    this.watch = 0;
  }

  private stopMedia(): void {
    this.epoch++;
    this.streaming = false;
    this.starting = null;
    this.clearWatch();
    for (const t of this.tracks) t.media?.pause();
  }

  pause(): void {
    if (!this.playing) return;
    this.offset = this.position;
    this.stopMedia();
    this.stopSources();
    this.playing = false;
    this.changed();
  }

  toggle(): void {
    if (this.playing) this.pause();
    else void this.play();
  }

  seek(seconds: number): void {
    const to = Math.min(Math.max(0, seconds), this.duration);
    if (this.playing && this.streaming) {
      this.restartAt(to);
    } else if (this.playing) {
      this.stopSources();
      this.playing = false;
      this.offset = to;
      void this.play();
    } else {
      this.offset = to;
      this.changed();
    }
  }

  setLoop(patch: Partial<Loop>): void {
    Object.assign(this.loop, patch);
    if (this.loop.end <= this.loop.start) this.loop.end = Math.min(this.duration, this.loop.start + 1);
    const p = this.position;
    // Restart from inside the loop so that the sources pick up the new loop points together.
    const inside = !this.loop.enabled || (p >= this.loop.start && p < this.loop.end);
    this.seek(inside ? p : this.loop.start);
  }

  setTrack(name: string, patch: Partial<Pick<Track, 'volume' | 'muted' | 'soloed'>>): void {
    const t = this.tracks.find((x) => x.name === name);
    if (!t) return;
    Object.assign(t, patch);
    this.applyGains();
    this.changed();
  }

  private applyGains(): void {
    const anySolo = this.tracks.some((t) => t.soloed);
    for (const t of this.tracks) t.gain.gain.value = effectiveGain(t, anySolo);
  }

  private stopSources(): void {
    for (const t of this.tracks) {
      const src = t.source;
      t.source = null;
      if (src) {
        src.onended = null;
        src.stop();
        src.disconnect();
      }
    }
  }

  /** Renders the stems as they are heard now (volume, mute, solo) into one stereo buffer. */
  async renderMix(): Promise<AudioBuffer> {
    if (!this.decoded) throw new Error('The stems are still loading.');
    const rate = this.tracks[0]?.buffer?.sampleRate ?? 44_100;
    const offline = new OfflineAudioContext(2, Math.ceil(this.duration * rate), rate);
    const anySolo = this.tracks.some((t) => t.soloed);
    for (const t of this.tracks) {
      const g = effectiveGain(t, anySolo);
      if (g === 0) continue;
      const gain = new GainNode(offline, { gain: g });
      gain.connect(offline.destination);
      const src = new AudioBufferSourceNode(offline, { buffer: t.buffer! });
      src.connect(gain);
      src.start(0);
    }
    return offline.startRendering();
  }

  close(): void {
    this.stopMedia();
    for (const t of this.tracks) t.media?.removeAttribute('src');
    this.stopSources();
    void this.ctx.close();
  }
}

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
function canPlay(m: HTMLMediaElement): Promise<void> {
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
