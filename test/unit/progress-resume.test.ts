import { afterEach, describe, expect, it, vi } from 'vitest';
import { ProgressSpan, segmentProgress } from '../../src/worker/progress-span.ts';

/**
 * A separation resumed from its checkpoint reports first where it starts (k of n segments), then
 * each segment. Its progress creeps toward the next segment's value and never past it: the
 * segment count is estimated from the segments run since the start, not since 0.
 */
describe('segment progress of a resumed separation', () => {
  afterEach(() => vi.useRealTimers());

  it('creeps toward the next of 20 segments, not past it, after resuming at the 10th', () => {
    vi.useFakeTimers();
    const reported: number[] = [];
    const span = new ProgressSpan((p) => reported.push(p), 250);
    const report = segmentProgress(span, 15, 80, 20);
    report(0.5); // resumed after 10 of 20
    vi.advanceTimersByTime(2_000);
    report(0.55); // the 11th
    vi.advanceTimersByTime(600_000); // a very slow 12th
    span.stop();
    const atTwelfth = 15 + 65 * 0.6;
    expect(Math.max(...reported)).toBeLessThan(atTwelfth);
    expect(Math.max(...reported)).toBeGreaterThan(15 + 65 * 0.55);
  });
});
