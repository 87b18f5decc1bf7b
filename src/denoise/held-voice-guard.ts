import type { RealFft } from '../dsp/fft.ts';
import { bandPower } from './erb.ts';
import { FrameBuffer } from './frame-buffer.ts';
import { RNNOISE_FRAME, type RnnoiseModule, RnnoiseStream } from './rnnoise.ts';
import { StftAnalyzer } from './stft.ts';

/*
 * Held-voice guard. DeepFilterNet3 takes a voice held still, a syllable drawn out over a second or
 * a sung note, for stationary noise and removes it while it lasts (docs/denoise.md, "Sustained
 * voices"); RNNoise (Valin 2018), a much weaker cleaner with a pitch filter and band gains, keeps
 * such voices. Both run on every frame. Per ERB band, the two disagree where RNNoise keeps the band
 * nearly whole (its gain at least KEEP_DB) and DeepFilterNet3 removed at least MARGIN_DB more.
 * They also disagree during ordinary speech: RNNoise's coarse, slow band gains keep the noise
 * between a talker's harmonics, which DeepFilterNet3 rightly removes, and taking RNNoise's bands
 * there cost 0.2 dB on everyday noisy speech. What tells the two apart is what DeepFilterNet3 says
 * of the frame: removing a held voice, it has taken the frame for noise (its local SNR estimate is
 * low); in ordinary speech its estimate is high (median 13 dB where the bands disagreed). So the
 * band is RNNoise's only in frames DeepFilterNet3 puts below MAX_LSNR_DB; everywhere else the
 * output is DeepFilterNet3's, untouched. Chosen on the tuning half of the everyday set, the Dutch
 * voice and the slowed voices; RNNoise's VAD probability and how long a band had disagreed were
 * tried and dropped (docs/denoise.md, "Ordinary speech untouched").
 */
const KEEP_DB = -1;
const MARGIN_DB = 4;
const MAX_LSNR_DB = 5;
const KEEP = 10 ** (KEEP_DB / 10);
const MARGIN = 10 ** (-MARGIN_DB / 10);

/** The held-voice guard's state for one channel: an RNNoise stream and the spectra of its output. */
export class HeldVoiceGuard {
  private readonly stream: RnnoiseStream;
  private readonly analyzer: StftAnalyzer;
  /** RNNoise's output spectra, aligned with the input's frames (its one-frame delay removed). */
  private readonly spectra: FrameBuffer;
  private readonly denoised = new Float32Array(RNNOISE_FRAME);
  private readonly px: Float32Array;
  private readonly py: Float32Array;
  private readonly pr: Float32Array;
  private delayed = true;

  constructor(
    rnnoise: RnnoiseModule,
    fft: RealFft,
    window: Float32Array,
    private readonly widths: Int32Array,
    rows: number,
  ) {
    this.stream = new RnnoiseStream(rnnoise);
    this.analyzer = new StftAnalyzer(fft, window, RNNOISE_FRAME);
    this.spectra = new FrameBuffer(window.length + 2, rows);
    this.px = new Float32Array(widths.length);
    this.py = new Float32Array(widths.length);
    this.pr = new Float32Array(widths.length);
  }

  /** Feeds one hop of input (480 samples at 48 kHz); RNNoise's spectrum of the previous hop becomes ready. */
  track(hop: Float32Array): void {
    this.stream.process(hop, this.denoised);
    if (this.delayed) {
      this.delayed = false;
      return;
    }
    this.analyzer.analyze(this.denoised, this.spectra.push());
  }

  /**
   * Where frame `j`'s output `y` lost a voice that RNNoise kept and the model took the frame for
   * noise (`lsnr`, its local SNR estimate, dB: see above), takes RNNoise's bands.
   */
  apply(j: number, x: Float32Array, y: Float32Array, lsnr: number): void {
    const r = this.spectra.row(j);
    if (!r || lsnr >= MAX_LSNR_DB) return;
    const { widths, px, py, pr } = this;
    bandPower(x, widths, px);
    bandPower(y, widths, py);
    bandPower(r, widths, pr);
    let bin = 0;
    for (let b = 0; b < widths.length; b++) {
      const w = widths[b]!;
      const kept = pr[b]!;
      if (kept >= KEEP * px[b]! && py[b]! < kept * MARGIN) y.set(r.subarray(2 * bin, 2 * (bin + w)), 2 * bin);
      bin += w;
    }
  }

  dropBefore(t: number): void {
    this.spectra.dropBefore(t);
  }

  close(): void {
    this.stream.close();
  }
}
