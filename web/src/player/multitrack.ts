/**
 * One transport for several stems. Every decoded stem is an AudioBufferSourceNode started with the
 * same `when` and the same offset on one AudioContext clock, so the stems are sample-aligned after
 * every play, seek and loop change (HTMLMediaElements drift and seek independently; buffers do not).
 * Decoding four long stems takes seconds on a slow machine, so a play pressed before they are
 * decoded streams them through media elements on the same gain nodes (mute/solo/volume apply), and
 * hands over to the buffers at the current position once they are ready (`setBuffers`).
 */
export interface Track {
  name: string;
  url: string;
  /** Null until decoded; until then a play streams the stem through `media`. */
  buffer: AudioBuffer | null;
  media: HTMLAudioElement | null;
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
    if (this.streaming) {
      const at = this.position;
      this.stopMedia();
      this.playing = false;
      this.offset = at;
      void this.play();
    } else {
      this.changed();
    }
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
    if (this.streaming) return Math.min(this.tracks[0]?.media?.currentTime ?? this.offset, this.duration);
    let p = this.offset + Math.max(0, this.ctx.currentTime - this.startedAt);
    const { enabled, start, end } = this.loop;
    if (enabled && this.offset < end && p >= end) p = start + ((p - end) % Math.max(0.01, end - start));
    return Math.min(p, this.duration);
  }

  async play(): Promise<void> {
    if (this.playing) return;
    if (this.offset >= this.duration - 0.01) this.offset = this.loop.enabled ? this.loop.start : 0;
    if (!this.decoded) return this.stream();
    // A few milliseconds ahead so every start() lands on the same render quantum.
    const when = this.ctx.currentTime + 0.02;
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

  /** Plays the stems through media elements (loop points apply once the stems are decoded). */
  private async stream(): Promise<void> {
    const media = this.tracks.map((t) => {
      if (!t.media) {
        t.media = new Audio(t.url);
        t.media.preload = 'auto';
        this.ctx.createMediaElementSource(t.media).connect(t.gain);
      }
      t.media.currentTime = this.offset;
      return t.media;
    });
    media[0].onended = () => {
      if (this.streaming) {
        this.stopMedia();
        this.playing = false;
        this.offset = 0;
        this.changed();
      }
    };
    this.streaming = true;
    this.playing = true;
    this.changed();
    if (this.ctx.state !== 'running') await this.ctx.resume();
    // Start them together once every one can play, so they begin as close together as media
    // elements allow (tens of ms); the handover to the decoded buffers aligns them exactly.
    await Promise.all(
      media.map(
        (m) =>
          new Promise<void>((resolve) => {
            if (m.readyState >= HTMLMediaElement.HAVE_FUTURE_DATA) resolve();
            else m.addEventListener('canplay', () => resolve(), { once: true });
          }),
      ),
    );
    if (!this.streaming) return;
    for (const m of media) void m.play().catch(() => {});
  }

  private stopMedia(): void {
    this.streaming = false;
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
      for (const t of this.tracks) if (t.media) t.media.currentTime = to;
      this.offset = to;
      this.changed();
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

/** Fetches and decodes every stem in parallel (decodeAudioData runs off the main thread). */
export async function loadStems(
  ctx: BaseAudioContext,
  stems: { name: string; url: string }[],
  onProgress: (done: number) => void,
  signal: AbortSignal,
): Promise<{ name: string; buffer: AudioBuffer }[]> {
  let done = 0;
  return Promise.all(
    stems.map(async ({ name, url }) => {
      const res = await fetch(url, { signal, credentials: 'same-origin' });
      if (!res.ok) throw new Error(`Could not load ${name} (HTTP ${res.status}).`);
      const buffer = await ctx.decodeAudioData(await res.arrayBuffer());
      onProgress(++done);
      return { name, buffer };
    }),
  );
}
