/**
 * A play pressed before the stems are decoded streams them through media elements (HTTP Range),
 * each routed by a MediaElementAudioSourceNode into the stem's own GainNode (mute/solo/volume apply).
 * Starts and seeks pause every element, move them all, wait until each can play, and start them in
 * one task; a watch every 100 ms re-aligns them when their positions spread by more than
 * `MAX_SPREAD` and applies the loop. At the handover to the decoded buffers a gain step at the
 * buffers' start time silences the media.
 */
import { canPlay } from './load-stems.ts';
import type { Loop, Track } from './track.ts';

/**
 * Streamed stems whose positions spread by more than this are re-aligned (the target is 50 ms).
 * Chromium moves a media element's currentTime in steps of 512 or 1024 frames (11.6 or 23.2 ms at
 * 44.1 kHz), so a spread read as at most 30 ms is under 46 ms in truth; more re-aligns them.
 */
export const MAX_SPREAD = 0.03;

/** What `Streaming` needs of the transport it plays for. */
export interface StreamingHost {
  /** The transport's duration now (it changes once the stems are decoded). */
  duration(): number;
  /** The playback rate every element plays at (the bus keeps the pitch). */
  tempo(): number;
  /** Tells the transport's listeners that something changed. */
  changed(): void;
  /** The first stem's element reached its end (the elements are stopped already). */
  ended(): void;
}

/** Plays the stems through media elements until they are decoded. */
export class Streaming {
  /** True while playing through media elements. */
  active = false;
  /** Largest spread between streamed stems seen since the last start or seek (seconds), and re-alignments. */
  spread = 0;
  resyncs = 0;
  /** The position the elements were last started or moved to. */
  private from = 0;
  /** Bumped by every stop, start and handover: a start that was overtaken gives up. */
  private epoch = 0;
  /** Set while the elements are being started or moved (see `settled`). */
  private startup: Promise<void> | null = null;
  private watch = 0;

  constructor(
    private readonly ctx: AudioContext,
    private readonly tracks: Track[],
    private readonly loop: Loop,
    private readonly host: StreamingHost,
  ) {}

  /** True while the elements are being started or moved (they are not playing yet). */
  get starting(): boolean {
    return this.startup !== null;
  }

  /**
   * Where the streamed stems are: while starting, where they start; then the first stem's element
   * leads (the watch keeps the others near).
   */
  get position(): number {
    if (this.startup) return this.from;
    return Math.min(this.tracks[0]?.media?.currentTime ?? this.from, this.host.duration());
  }

  /** The stem's own element position while the elements play (they differ by up to `MAX_SPREAD`), else null. */
  stemTime(t: Track): number | null {
    return this.active && !this.startup && t.media ? t.media.currentTime : null;
  }

  /**
   * Resolves when no streamed start or seek is under way (the decoder waits for this), or after 2 s
   * (an element that never loads must not hold the decoding back for good).
   */
  async settled(): Promise<void> {
    if (this.startup) await Promise.race([this.startup, new Promise((r) => setTimeout(r, 2000))]);
  }

  /**
   * Plays the stems through media elements from `offset`: pauses them, moves them all there, waits
   * until every one can play, then starts them in one task (loop points apply through the watch).
   */
  async start(offset: number): Promise<void> {
    const epoch = ++this.epoch;
    this.from = offset;
    this.clearWatch();
    const media = this.tracks.map((t) => {
      if (!t.media) {
        t.media = new Audio(t.url);
        t.media.preload = 'auto';
        t.mediaGain = new GainNode(this.ctx);
        t.mediaGain.connect(t.gain);
        this.ctx.createMediaElementSource(t.media).connect(t.mediaGain);
        t.media.onended = () => {
          if (this.active && t === this.tracks[0]) this.ended();
        };
      }
      t.media.pause();
      t.media.currentTime = offset;
      // Resampled like the decoded stems' sources: the player's bus corrects the pitch for both.
      t.media.preservesPitch = false;
      t.media.playbackRate = this.host.tempo();
      return t.media;
    });
    this.active = true;
    this.spread = 0;
    let done = () => {};
    this.startup = new Promise((resolve) => {
      done = resolve;
    });
    this.host.changed();
    try {
      if (this.ctx.state !== 'running') await this.ctx.resume();
      await Promise.all(media.map(canPlay));
      if (epoch !== this.epoch) return;
      // One task: every element is told to play before any of them renders.
      await Promise.all(media.map((m) => m.play().catch(() => {})));
    } finally {
      if (epoch === this.epoch) this.startup = null;
      done();
    }
    if (epoch !== this.epoch) return;
    this.watch = window.setInterval(() => this.check(), 100);
    this.host.changed();
  }

  /** Every 100 ms while streaming: the loop, and re-aligning stems that drifted apart. */
  private check(): void {
    if (!this.active || this.startup) return;
    const times = this.tracks.flatMap((t) => (t.media && !t.media.paused ? [t.media.currentTime] : []));
    const spread = Math.max(...times) - Math.min(...times);
    this.spread = Math.max(this.spread, spread);
    const p = this.position;
    if (this.loop.enabled && this.from < this.loop.end && p >= this.loop.end) {
      void this.start(this.loop.start);
    } else if (spread > MAX_SPREAD) {
      this.resyncs++;
      void this.start(p);
    }
  }

  private ended(): void {
    this.stop();
    this.host.ended();
  }

  private clearWatch(): void {
    clearInterval(this.watch);
    this.watch = 0;
  }

  /** Pauses the elements and gives up any start under way. */
  stop(): void {
    this.epoch++;
    this.active = false;
    this.startup = null;
    this.clearWatch();
    for (const t of this.tracks) t.media?.pause();
  }

  /**
   * The buffers start at context time `when`: a gain step at that same time silences the media,
   * which then let go of their source.
   */
  handOver(when: number): void {
    this.clearWatch();
    this.active = false;
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
  }

  close(): void {
    this.stop();
    for (const t of this.tracks) t.media?.removeAttribute('src');
  }
}
