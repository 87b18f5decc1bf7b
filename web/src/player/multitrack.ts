/**
 * One transport for several stems. Every decoded stem is an AudioBufferSourceNode started with the
 * same `when` and the same offset on one AudioContext clock, so the stems are sample-aligned after
 * every play, seek and loop change (HTMLMediaElements drift and seek independently; buffers do not).
 *
 * The stems are decoded one at a time (`loadStems`), which takes seconds on a busy machine, so a
 * play pressed before they are decoded streams them through media elements (`Streaming`). Once
 * decoded, a streaming play moves onto the buffers at the position reached: the buffers start at a
 * context time a little ahead and the media are silenced by a gain step at that same time.
 */
import { correctionSemitones, PitchBus } from './stretch.ts';
import { Streaming } from './streaming.ts';
import { effectiveGain, type Loop, newTrack, type Track } from './track.ts';

export class Multitrack {
  readonly tracks: Track[];
  /** From the server's peaks until the stems are decoded, then the longest decoded stem. */
  duration: number;
  readonly loop: Loop;
  playing = false;
  /** Playback speed, 0.5-1.5 (the pitch is kept), and the transposition in semitones (the tempo is kept). */
  tempo = 1;
  pitch = 0;
  /** Every stem feeds it; it keeps the pitch when the tempo changes, and transposes (stretch.ts). */
  readonly bus: PitchBus;
  /** The position when paused, and the buffers' start offset (while streaming, `streaming.position` holds). */
  private offset = 0;
  private startedAt = 0;
  private listeners = new Set<() => void>();
  /** Plays the stems through media elements until they are decoded. */
  private readonly streaming: Streaming;

  constructor(
    readonly ctx: AudioContext,
    stems: { name: string; url: string }[],
    duration: number,
  ) {
    this.duration = duration;
    this.loop = { enabled: false, start: 0, end: this.duration };
    this.bus = new PitchBus(ctx);
    this.tracks = stems.map((stem) => newTrack(ctx, stem, this.bus.input));
    this.streaming = new Streaming(ctx, this.tracks, this.loop, {
      duration: () => this.duration,
      tempo: () => this.tempo,
      changed: () => this.changed(),
      ended: () => this.ended(),
    });
  }

  /** Largest spread between streamed stems seen since the last start or seek (seconds). */
  get spread(): number {
    return this.streaming.spread;
  }

  /** How many times the streamed stems were re-aligned. */
  get resyncs(): number {
    return this.streaming.resyncs;
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
    if (!this.streaming.active) {
      this.changed();
      return;
    }
    if (this.streaming.starting) {
      // The media were not playing yet: start the buffers where they were going to start.
      this.offset = this.streaming.position;
      this.streaming.stop();
      this.playing = false;
      void this.play();
      return;
    }
    // Hand over at a context time a little ahead: the buffers start there at the position the media
    // will have reached, and a gain step at that same time silences the media.
    const lead = 0.05;
    const when = this.ctx.currentTime + lead;
    const at = Math.min(this.streaming.position + lead * this.tempo, this.duration);
    this.streaming.handOver(when);
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
    if (this.streaming.active) return this.streaming.position;
    let p = this.offset + Math.max(0, this.ctx.currentTime - this.startedAt) * this.tempo;
    const { enabled, start, end } = this.loop;
    if (enabled && this.offset < end && p >= end) p = start + ((p - end) % Math.max(0.01, end - start));
    return Math.min(p, this.duration);
  }

  /** The context time the decoded stems start at when a play was scheduled ahead (a count-in); else 0. */
  get startsAt(): number {
    return this.playing && !this.streaming.active ? this.startedAt : 0;
  }

  /** Each stem's own position now (streamed stems can differ by up to `MAX_SPREAD`). */
  stemTime(t: Track): number {
    const own = this.playing ? this.streaming.stemTime(t) : null;
    return own ?? this.position;
  }

  /** 'media' while streaming, 'buffers' once decoded. */
  get mode(): 'media' | 'buffers' {
    return this.decoded ? 'buffers' : 'media';
  }

  /**
   * Resolves when no streamed start or seek is under way (the decoder waits for this), or after 2 s
   * (an element that never loads must not hold the decoding back for good).
   */
  settled(): Promise<void> {
    return this.streaming.settled();
  }

  /** `at`: the context time to start at (the handover picks it); by default a few ms ahead. */
  async play(at?: number): Promise<void> {
    if (this.playing) return;
    if (this.offset >= this.duration - 0.01) this.offset = this.loop.enabled ? this.loop.start : 0;
    if (!this.decoded) {
      this.playing = true;
      return this.streaming.start(this.offset);
    }
    // A few milliseconds ahead so every start() lands on the same render quantum.
    const when = at ?? this.ctx.currentTime + 0.02;
    for (const t of this.tracks) {
      const src = new AudioBufferSourceNode(this.ctx, { buffer: t.buffer!, playbackRate: this.tempo });
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

  /** The streamed stems reached their end. */
  private ended(): void {
    this.playing = false;
    this.offset = 0;
    this.changed();
  }

  pause(): void {
    if (!this.playing) return;
    this.offset = this.position;
    this.streaming.stop();
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
    if (this.playing && this.streaming.active) {
      this.offset = to;
      void this.streaming.start(to);
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

  /**
   * Tempo (0.5-1.5) and pitch (semitones): every stem restarts from where it is at the new rate, with
   * one start time and offset as after a seek, and the bus corrects the pitch the rate moved.
   */
  async setTempoPitch(patch: { tempo?: number; pitch?: number }): Promise<void> {
    const at = this.position;
    if (patch.tempo !== undefined) this.tempo = Math.min(1.5, Math.max(0.5, patch.tempo));
    if (patch.pitch !== undefined) this.pitch = Math.min(12, Math.max(-12, patch.pitch));
    const done = this.bus.set(correctionSemitones(this.tempo, this.pitch));
    if (patch.tempo !== undefined) this.seek(at);
    else this.changed();
    await done;
    this.changed();
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

  close(): void {
    this.streaming.close();
    this.stopSources();
    void this.ctx.close();
  }
}
