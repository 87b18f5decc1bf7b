import type { ProgressPhase } from '../domain/vocabulary.ts';

type Report = (percent: number, phase: ProgressPhase) => void;

/** The creep reaches 95 % of a span at this many times the expected duration. */
const CREEP_HORIZON = 50;

/**
 * Progress that moves between the checkpoints a stage can report. A stage enters a span (a phase,
 * the percent it starts at, the percent of its next real checkpoint and how long that is expected
 * to take); between checkpoints the percent creeps toward the next one on a timer, logarithmically
 * in time (ln(1 + t / expected), reaching 95 % of the way at 50x the expected time), so it still moves
 * when a step runs far longer than expected (a loaded machine, a cold model) and never reaches it, so a client sees movement during a model
 * load or a long segment, and a real checkpoint is never overtaken. The runner keeps the written
 * value monotonic.
 */
export class ProgressSpan {
  private span: { phase: ProgressPhase; from: number; to: number; startedAt: number; expectedMs: number } | null = null;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly report: Report,
    tickMs = 250,
  ) {
    this.timer = setInterval(() => this.tick(), tickMs);
    this.timer.unref();
  }

  /** Starts a span at `from` (reported now) that creeps toward `to` over about `expectedMs`. */
  enter(phase: ProgressPhase, from: number, to: number, expectedMs: number): void {
    this.span = { phase, from, to, startedAt: Date.now(), expectedMs: Math.max(100, expectedMs) };
    this.report(from, phase);
  }

  /** A checkpoint with no creep after it (the next span will start from here). */
  mark(phase: ProgressPhase, percent: number): void {
    this.span = null;
    this.report(percent, phase);
  }

  stop(): void {
    clearInterval(this.timer);
    this.span = null;
  }

  private tick(): void {
    const s = this.span;
    if (!s) return;
    const t = Date.now() - s.startedAt;
    const reached = Math.min(1, Math.log1p(t / s.expectedMs) / Math.log1p(CREEP_HORIZON));
    this.report(s.from + (s.to - s.from) * 0.95 * reached, s.phase);
  }
}

/**
 * Follows a separation's segment reports (`fraction` 0 when the model is loaded and the first
 * segment starts, or k/n when it resumes after k kept segments; then i/n after segment i) inside
 * [from, to], creeping through each segment at the pace of the last one.
 */
export function segmentProgress(span: ProgressSpan, from: number, to: number, estimatedSegments: number) {
  const at = (f: number) => from + (to - from) * Math.min(1, f);
  let segments = Math.max(1, estimatedSegments);
  let done = 0;
  let base: number | undefined;
  let lastAt = Date.now();
  let perSegmentMs = 3000;
  return (fraction: number): void => {
    const now = Date.now();
    if (base === undefined) base = fraction;
    else if (fraction > base) {
      done++;
      segments = Math.max(done, Math.round(done / (fraction - base)));
      perSegmentMs = now - lastAt;
    }
    lastAt = now;
    if (fraction >= 1) span.mark('separating', at(1));
    else span.enter('separating', at(fraction), at(fraction + 1 / segments), perSegmentMs);
  };
}
