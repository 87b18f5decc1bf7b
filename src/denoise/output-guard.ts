import { FrameBuffer } from './frame-buffer.ts';

/*
 * Clean-frame guard. The encoder also estimates each frame's local SNR (lsnr, clamped by the model
 * to [-15, 35] dB). Where it judges a frame clean, any change the filter makes can only remove
 * speech, so there the noisy frame is returned: libDF's real-time path does the same with a hard
 * switch (no processing above 30 dB, `max_db_erb_thresh`). We ramp the input's weight from 0 at
 * 30 dB to 1 at 34 dB, on the lowest lsnr of the frame and its two neighbours on each side, so a
 * frame next to a noisy one is never passed through and the switching cannot click.
 */
const PASS_FROM_DB = 30;
const PASS_FULL_DB = 34;

/*
 * Speech-loss guard. Where the model removes nearly everything from a frame that stands well above
 * the recording's noise floor, it has most likely taken speech for noise (measured: the opening
 * words of a talker over babble, removed by 40+ dB while they dominated the mix). There the input
 * is mixed back so that the frame loses at most MAX_LOSS_DB. Frames near the floor (pauses, steady
 * noise) are not limited. A loud noise burst is therefore lowered by at least MAX_LOSS_DB, not
 * removed; the attenuation limit is the user's knob for more or less.
 */
const FLOOR_FRAMES = 50;
const ABOVE_FLOOR_DB = 6;
const MAX_LOSS_DB = 12;

function cappedMix(y: Float32Array, level: Float32Array): number {
  const ein = level[0]!;
  const floor = level[1]!;
  if (!(ein > floor * 10 ** (ABOVE_FLOOR_DB / 10))) return 0;
  let eout = 0;
  for (let i = 0; i < y.length; i++) eout += y[i]! * y[i]!;
  const kept = Math.sqrt(eout / ein);
  const target = 10 ** (-MAX_LOSS_DB / 20);
  return kept >= target ? 0 : (target - kept) / (1 - kept);
}

/** Weight in [0, 1] of the noisy frame under the clean-frame guard, for row `r` of the window's lsnr. */
export function passWeight(lsnr: Float32Array, r: number): number {
  let low = Infinity;
  for (let k = Math.max(0, r - 2); k <= Math.min(lsnr.length - 1, r + 2); k++) low = Math.min(low, lsnr[k]!);
  return Math.min(1, Math.max(0, (low - PASS_FROM_DB) / (PASS_FULL_DB - PASS_FROM_DB)));
}

/** The speech-loss guard's state for one channel: each frame's energy and the noise floor below it. */
export class SpeechLossGuard {
  /** Per frame: the noisy frame's energy and the noise floor below it (see cappedMix). */
  private readonly level: FrameBuffer;
  private readonly floorRing = new Float64Array(FLOOR_FRAMES);
  private floorCount = 0;
  private smoothedEnergy = 0;

  constructor(rows: number) {
    this.level = new FrameBuffer(2, rows);
  }

  /** Frame energy, and a minimum-statistics noise floor: the least smoothed energy of the last 0.5 s. */
  track(spec: Float32Array): void {
    const out = this.level.push();
    let e = 0;
    for (let i = 0; i < spec.length; i++) e += spec[i]! * spec[i]!;
    this.smoothedEnergy = this.floorCount === 0 ? e : 0.7 * this.smoothedEnergy + 0.3 * e;
    this.floorRing[this.floorCount++ % FLOOR_FRAMES] = this.smoothedEnergy;
    let floor = Infinity;
    for (let k = 0; k < Math.min(this.floorCount, FLOOR_FRAMES); k++) floor = Math.min(floor, this.floorRing[k]!);
    out[0] = e;
    out[1] = floor;
  }

  /** Weight in [0, 1] of the noisy frame that keeps enhanced frame `y` (index `j`) within MAX_LOSS_DB. */
  mix(j: number, y: Float32Array): number {
    const level = this.level.row(j);
    return level ? cappedMix(y, level) : 0;
  }

  /** Forgets frames before index `t`. */
  dropBefore(t: number): void {
    this.level.dropBefore(t);
  }
}
