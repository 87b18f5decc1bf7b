/**
 * The click track: a short tone on every beat of the job (higher on the first beat of a bar),
 * scheduled on the AudioContext clock a little ahead from the transport's position, so it follows
 * the stems at any tempo (a beat at song time b is heard (b - position) / tempo seconds from now),
 * through loops (the beats after the loop's end are those after its start) and seeks. A count-in
 * plays one bar of clicks before playback starts, in the time of the beats that follow.
 */
import type { BeatGrid } from './beats.ts';
import { beatPeriodAt } from './beats.ts';
import type { Multitrack } from './multitrack.ts';

/** How far ahead clicks are scheduled, and how often (a timer's lateness stays inside the lead). */
const LEAD = 0.25;
const EVERY_MS = 50;

export class ClickTrack {
  enabled = false;
  /** Clicks scheduled so far, and how many the last count-in had (the page shows both to tests). */
  clicks = 0;
  countedIn = 0;
  readonly output: GainNode;
  private readonly delay: DelayNode;
  private timer = 0;
  /** The context time of the last click scheduled: none closer than a beat's fraction after it. */
  private last = 0;
  private scheduled: { node: OscillatorNode; at: number }[] = [];
  private readonly off: () => void;

  constructor(
    private readonly engine: Multitrack,
    private readonly grid: BeatGrid,
  ) {
    const ctx = engine.ctx;
    this.output = new GainNode(ctx, { gain: 0.6 });
    // The stems reach the speakers through the tempo/pitch node when it is on, late by its latency:
    // the clicks wait as long.
    this.delay = new DelayNode(ctx, { maxDelayTime: 1 });
    this.output.connect(this.delay).connect(ctx.destination);
    this.off = engine.onChange(() => this.restart());
  }

  set volume(v: number) {
    this.output.gain.value = v;
  }

  setEnabled(on: boolean): void {
    this.enabled = on;
    this.restart();
  }

  /** A transport change (play, pause, seek, loop, tempo): what was scheduled ahead no longer holds. */
  private restart(): void {
    const now = this.engine.ctx.currentTime;
    for (const s of this.scheduled) if (s.at > now) s.node.stop();
    this.scheduled = this.scheduled.filter((s) => s.at <= now);
    this.last = 0;
    clearInterval(this.timer);
    this.timer = 0;
    this.delay.delayTime.value = this.engine.bus.active ? this.engine.bus.latency : 0;
    if (this.enabled && this.engine.playing) {
      this.tick();
      this.timer = window.setInterval(() => this.tick(), EVERY_MS);
    }
  }

  private tick(): void {
    const { engine } = this;
    if (!engine.playing) return;
    const now = engine.ctx.currentTime;
    const horizon = now + LEAD;
    const rate = engine.tempo;
    const { enabled: looping, start, end } = engine.loop;
    let from = engine.position;
    // During a count-in the stems start later than now: the song's time runs from there.
    let at = Math.max(now, engine.startsAt);
    // Walk the song ahead of the playhead: to the loop's end, then again from its start.
    for (let lap = 0; lap < 3 && at < horizon; lap++) {
      const until = looping && from < end ? end : engine.duration;
      for (const b of this.grid.beats) {
        if (b < from || b >= until) continue;
        const t = at + (b - from) / rate;
        if (t >= horizon) break;
        this.click(t, this.grid.downbeats.includes(b));
      }
      if (!(looping && until === end)) break;
      at += (until - from) / rate;
      from = start;
    }
  }

  /** One click at context time `t` (skipped when one was just scheduled there). */
  private click(t: number, accent: boolean): void {
    if (t < this.last + 0.08 || t < this.engine.ctx.currentTime) return;
    this.last = t;
    const ctx = this.engine.ctx;
    const node = new OscillatorNode(ctx, { frequency: accent ? 1760 : 1175 });
    const env = new GainNode(ctx, { gain: 0 });
    env.gain.setValueAtTime(0, t);
    env.gain.linearRampToValueAtTime(accent ? 1 : 0.7, t + 0.002);
    env.gain.exponentialRampToValueAtTime(0.001, t + 0.05);
    node.connect(env).connect(this.output);
    node.start(t);
    node.stop(t + 0.06);
    this.scheduled.push({ node, at: t });
    this.clicks++;
    if (this.scheduled.length > 64) this.scheduled = this.scheduled.slice(-32);
  }

  /**
   * A bar of clicks (beatsPerBar, the first accented) before playback from `position` starts, in
   * the time of the beats there at the tempo set, ending where the next beat of the song falls.
   * Returns the context time playback should start at.
   */
  countIn(position: number): number {
    const ctx = this.engine.ctx;
    const rate = this.engine.tempo;
    const period = beatPeriodAt(this.grid, position) / rate;
    const next = this.grid.beats.find((b) => b >= position) ?? position;
    const toNext = (next - position) / rate;
    const first = ctx.currentTime + 0.1;
    const n = this.grid.beatsPerBar;
    this.delay.delayTime.value = this.engine.bus.active ? this.engine.bus.latency : 0;
    this.last = 0;
    for (let i = 0; i < n; i++) this.click(first + i * period, i === 0);
    this.countedIn = n;
    // Not called off by the play that follows (a transport change cancels only the beat clicks).
    this.scheduled = this.scheduled.filter((s) => s.at < first);
    // The song's next beat lands one period after the last count-in click (a start between beats
    // starts that much earlier, never before the last click).
    return first + n * period - Math.min(toNext, period * 0.9);
  }

  close(): void {
    clearInterval(this.timer);
    this.off();
    for (const s of this.scheduled) s.node.stop();
    this.output.disconnect();
    this.delay.disconnect();
  }
}
