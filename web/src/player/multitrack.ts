/**
 * One transport for several decoded stems. Every stem is an AudioBufferSourceNode started with the
 * same `when` and the same offset on one AudioContext clock, so the stems are sample-aligned after
 * every play, seek and loop change (HTMLMediaElements drift and seek independently; buffers do not).
 */
export interface Track {
  name: string;
  buffer: AudioBuffer;
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
  readonly duration: number;
  readonly loop: Loop;
  playing = false;
  private offset = 0;
  private startedAt = 0;
  private listeners = new Set<() => void>();

  constructor(
    readonly ctx: AudioContext,
    stems: { name: string; buffer: AudioBuffer }[],
  ) {
    this.duration = Math.max(...stems.map((s) => s.buffer.duration));
    this.loop = { enabled: false, start: 0, end: this.duration };
    this.tracks = stems.map(({ name, buffer }) => {
      const gain = new GainNode(ctx);
      gain.connect(ctx.destination);
      return { name, buffer, volume: 1, muted: false, soloed: false, gain, source: null, startedAt: 0, startOffset: 0 };
    });
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
    let p = this.offset + Math.max(0, this.ctx.currentTime - this.startedAt);
    const { enabled, start, end } = this.loop;
    if (enabled && this.offset < end && p >= end) p = start + ((p - end) % Math.max(0.01, end - start));
    return Math.min(p, this.duration);
  }

  async play(): Promise<void> {
    if (this.playing) return;
    if (this.offset >= this.duration - 0.01) this.offset = this.loop.enabled ? this.loop.start : 0;
    // A few milliseconds ahead so every start() lands on the same render quantum.
    const when = this.ctx.currentTime + 0.02;
    for (const t of this.tracks) {
      const src = new AudioBufferSourceNode(this.ctx, { buffer: t.buffer });
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

  pause(): void {
    if (!this.playing) return;
    this.offset = this.position;
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
    if (this.playing) {
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
    const rate = this.tracks[0]?.buffer.sampleRate ?? 44_100;
    const offline = new OfflineAudioContext(2, Math.ceil(this.duration * rate), rate);
    const anySolo = this.tracks.some((t) => t.soloed);
    for (const t of this.tracks) {
      const g = effectiveGain(t, anySolo);
      if (g === 0) continue;
      const gain = new GainNode(offline, { gain: g });
      gain.connect(offline.destination);
      const src = new AudioBufferSourceNode(offline, { buffer: t.buffer });
      src.connect(gain);
      src.start(0);
    }
    return offline.startRendering();
  }

  close(): void {
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
