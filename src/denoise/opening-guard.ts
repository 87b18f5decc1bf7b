import { bandPower } from './erb.ts';
import { FrameBuffer } from './frame-buffer.ts';

/*
 * Opening guard. Over its first second the network has no context yet (the mirrored warm-up is
 * its only past), and this is where it was measured to take a talker starting over babble for
 * babble. There, per ERB band, the change the model makes to the input may not exceed
 * OPENING_BUDGET times the band's noise floor; the floor is the least smoothed band power within
 * OPENING_FLOOR_FRAMES before and after the frame (minimum statistics with look-ahead, so the
 * first frames see the floor of the coming half second, not a running state's start value). Where
 * the model changes a band by more, the input is mixed back until the change fits. The budget is
 * fully on at the first frame and fades out linearly over OPENING_FRAMES, after which the model
 * runs as before (applied to whole files, the same rule cost about 4 dB on street and music
 * noise, whose bursts sit far above their minimum: docs/denoise.md).
 */
const OPENING_FRAMES = 100;
const OPENING_FLOOR_FRAMES = 50;
const OPENING_BUDGET = 10;

/** Weight in [0, 1] of the opening guard at frame `t` frames after the input's first frame. */
function openingWeight(t: number): number {
  return Math.min(1, Math.max(0, 1 - t / OPENING_FRAMES));
}

/** The opening guard's state for one channel: smoothed ERB band powers over the opening. */
export class OpeningGuard {
  /** Per frame of the opening: smoothed power of each ERB band (see limit). */
  private readonly bands: FrameBuffer;
  private readonly bandSmooth: Float32Array;
  private readonly bandFloor: Float32Array;
  /** Frame index of the input's first sample (after the mirrored warm-up). */
  firstFrame = 0;

  constructor(
    private readonly widths: Int32Array,
    rows: number,
  ) {
    this.bands = new FrameBuffer(widths.length, rows + OPENING_FLOOR_FRAMES);
    this.bandSmooth = new Float32Array(widths.length);
    this.bandFloor = new Float32Array(widths.length);
  }

  /** Frames of look-ahead the guard still needs before a window starting at frame `start` can run. */
  floorAhead(start: number): number {
    return start < this.firstFrame + OPENING_FRAMES ? OPENING_FLOOR_FRAMES : 0;
  }

  /** Smoothed ERB band powers of frame `end - 1`, kept only as long as `limit` can read them. */
  track(spec: Float32Array, end: number): void {
    if (end > this.firstFrame + OPENING_FRAMES + OPENING_FLOOR_FRAMES + 1) return;
    const row = this.bands.push();
    bandPower(spec, this.widths, row);
    const first = this.bands.end === this.bands.start + 1 && this.bands.start === 0;
    for (let b = 0; b < row.length; b++) {
      const smooth = first ? row[b]! : 0.7 * this.bandSmooth[b]! + 0.3 * row[b]!;
      this.bandSmooth[b] = smooth;
      row[b] = smooth;
    }
  }

  /** The opening guard (see OPENING_BUDGET) on enhanced frame `y` of noisy frame `x`, index `j`. */
  limit(j: number, x: Float32Array, y: Float32Array): void {
    const weight = openingWeight(j - this.firstFrame);
    if (weight <= 0) return;
    const floor = this.bandFloor.fill(Infinity);
    for (let k = j - OPENING_FLOOR_FRAMES; k <= j + OPENING_FLOOR_FRAMES; k++) {
      const row = this.bands.row(k);
      if (row) for (let b = 0; b < floor.length; b++) floor[b] = Math.min(floor[b]!, row[b]!);
    }
    const widths = this.widths;
    let i0 = 0;
    for (let b = 0; b < widths.length; b++) {
      const width = widths[b]!;
      const i1 = i0 + 2 * width;
      let change = 0;
      for (let i = i0; i < i1; i++) change += (x[i]! - y[i]!) ** 2;
      const budget = OPENING_BUDGET * floor[b]! * width;
      if (change > budget) {
        const m = weight * (1 - Math.sqrt(budget / change));
        for (let i = i0; i < i1; i++) y[i] = y[i]! + m * (x[i]! - y[i]!);
      }
      i0 = i1;
    }
  }

  /** Forgets frames the guard no longer needs once the enhancer has dropped those before `t`. */
  dropBefore(t: number): void {
    this.bands.dropBefore(t - OPENING_FLOOR_FRAMES);
  }
}
