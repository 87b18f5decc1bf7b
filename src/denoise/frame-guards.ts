import type { RealFft } from '../dsp/fft.ts';
import { HeldVoiceGuard } from './held-voice-guard.ts';
import { OpeningGuard } from './opening-guard.ts';
import { passWeight, SpeechLossGuard } from './output-guard.ts';
import type { RnnoiseModule } from './rnnoise.ts';

/** What the guards read of a channel's DSP tables (channel-enhancer.ts's ChannelDsp has them all). */
export interface GuardDsp {
  fft: RealFft;
  window: Float32Array;
  widths: Int32Array;
  /** Gains of the lowest bins for the infrasound high-pass (see denoiser.ts); empty = off. */
  lowCut: Float32Array;
  /** Output guards (output-guard.ts, opening-guard.ts); false = the model's output everywhere. */
  guard: boolean;
  /** RNNoise for the held-voice guard (held-voice-guard.ts); null = no such guard (always null without `guard`). */
  rnnoise: RnnoiseModule | null;
}

/**
 * Everything one channel does to an enhanced frame after the network and the deep filter, in this
 * order: the attenuation limit and the clean-frame and speech-loss guards (the larger share of the
 * input wins), the opening guard, the held-voice guard, then the infrasound high-pass. With
 * `dsp.guard` off only the attenuation limit and the high-pass are applied.
 */
export class FrameGuards {
  private readonly lossGuard: SpeechLossGuard;
  private readonly openingGuard: OpeningGuard;
  private readonly heldVoiceGuard: HeldVoiceGuard | undefined;

  constructor(
    private readonly dsp: GuardDsp,
    rows: number,
    /** Weight of the noisy spectrum in the output (attenuation limit); 0 = none. */
    private readonly noisyMix: number,
  ) {
    this.lossGuard = new SpeechLossGuard(rows);
    this.openingGuard = new OpeningGuard(dsp.widths, rows);
    if (dsp.rnnoise) this.heldVoiceGuard = new HeldVoiceGuard(dsp.rnnoise, dsp.fft, dsp.window, dsp.widths, rows);
  }

  /** The first frame of the input proper (after the mirrored start-up), where the opening guard starts. */
  set firstFrame(frame: number) {
    this.openingGuard.firstFrame = frame;
  }

  /** Frames of look-ahead the opening guard still needs before a window starting at `start` can run. */
  floorAhead(start: number): number {
    return this.dsp.guard ? this.openingGuard.floorAhead(start) : 0;
  }

  /** Reads one new frame: its input hop and spectrum; `end` is the frame count after it. */
  track(hop: Float32Array, spec: Float32Array, end: number): void {
    this.lossGuard.track(spec);
    this.heldVoiceGuard?.track(hop);
    if (this.dsp.guard) this.openingGuard.track(spec, end);
  }

  /**
   * Applies the guards to enhanced frame `y` (index `j`, noisy spectrum `x` when still held), whose
   * local SNR estimates are `lsnr` (row `r` is this frame's).
   */
  apply(j: number, x: Float32Array | undefined, y: Float32Array, lsnr: Float32Array, r: number): void {
    const guard = this.dsp.guard;
    let mix = Math.max(this.noisyMix, guard ? passWeight(lsnr, r) : 0);
    if (guard && x) mix = Math.max(mix, this.lossGuard.mix(j, y));
    if (mix > 0 && x) for (let i = 0; i < y.length; i++) y[i] = y[i]! * (1 - mix) + x[i]! * mix;
    if (guard && x) this.openingGuard.limit(j, x, y);
    if (x) this.heldVoiceGuard?.apply(j, x, y, lsnr[r]!);
    const lowCut = this.dsp.lowCut;
    for (let k = 0; k < lowCut.length; k++) {
      y[2 * k]! *= lowCut[k]!;
      y[2 * k + 1]! *= lowCut[k]!;
    }
  }

  dropBefore(t: number): void {
    this.lossGuard.dropBefore(t);
    this.openingGuard.dropBefore(t);
    this.heldVoiceGuard?.dropBefore(t);
  }

  close(): void {
    this.heldVoiceGuard?.close();
  }
}
