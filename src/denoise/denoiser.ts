import { ChannelEnhancer, type ChannelDsp, type ChannelOptions } from './channel-enhancer.ts';
import { erbWidths } from './erb.ts';
import { RealFft } from '../dsp/fft.ts';
import { loadDfn3Model, normAlpha, type DfParams } from './model-files.ts';
import { Dfn3Network, type NetworkOptions } from './network.ts';
import { loadRnnoise, RNNOISE_FRAME } from './rnnoise.ts';
import { vorbisWindow } from './stft.ts';

export interface DenoiserOptions extends NetworkOptions {
  /** Cut-off of the infrasound high-pass on the output, Hz; 0 turns it off. */
  highPassHz?: number;
  /**
   * Start-up handling (mirrored warm-up over the opening, normalisation states from the opening):
   * 'mirror' (default) or 'none' (upstream's cold start; for comparisons).
   */
  startup?: 'mirror' | 'none';
  /** The output guards (output-guard.ts, opening-guard.ts, held-voice-guard.ts); default on, false for comparisons. */
  guard?: boolean;
  /** The held-voice guard alone (held-voice-guard.ts); default on with the others, false for comparisons. */
  heldVoiceGuard?: boolean;
  /**
   * The feature normalisations' time constant, seconds (default: the model's norm_tau, 1 s), and the
   * one used while a state rises (default: the same). For comparisons only: no other setting kept
   * held vowels without costing natural-pace speech (docs/denoise.md, "Sustained voices").
   */
  normSeconds?: number;
  normUpSeconds?: number;
}

/**
 * Length of the opening used by the start-up: two seconds (one second, the normalisations' time
 * constant, left the first second of short files 0.3-0.6 dB lower at 0-5 dB SNR: docs/denoise.md).
 */
export const STARTUP_SECONDS = 2;

/*
 * DeepFilterNet3 leaves strong sub-audible rumble (below ~40 Hz, the 0 Hz STFT bin) largely in
 * place: on mixes with the benchmark's wind/traffic noise it passed 55 of 61 dB there. Like RNNoise,
 * which high-passes its input (denoise.c, biquad near 30 Hz), we remove it: a 4th-order Butterworth
 * magnitude response at 35 Hz applied to the enhanced spectrum. Speech has no content there; clean
 * speech passthrough stays above 23 dB SI-SDR (docs/denoise.md).
 */
export const DEFAULT_HIGH_PASS_HZ = 35;

function lowCutGains(p: DfParams, cutoffHz: number): Float32Array {
  if (!(cutoffHz > 0)) return new Float32Array(0);
  const binHz = p.sampleRate / p.fftSize;
  const gains: number[] = [];
  for (let k = 0; ; k++) {
    const f = k * binHz;
    const g = f === 0 ? 0 : 1 / Math.sqrt(1 + (cutoffHz / f) ** 8);
    if (g > 0.9999) break;
    gains.push(g);
  }
  return Float32Array.from(gains);
}

/**
 * A loaded DeepFilterNet3: verified model files, ONNX sessions and the DSP tables. Load once per
 * thread and reuse; `channel()` makes an independent streaming enhancer for one audio channel.
 */
export class Denoiser {
  private constructor(
    readonly params: DfParams,
    private readonly net: Dfn3Network,
    private readonly dsp: ChannelDsp,
  ) {}

  static async load(modelDir: string, opts: DenoiserOptions = {}): Promise<Denoiser> {
    const model = await loadDfn3Model(modelDir);
    const p = model.params;
    if (p.fftSize % p.hopSize !== 0 || 2 * p.hopSize > p.fftSize) {
      throw new Error(`unsupported DeepFilterNet STFT: fft_size ${p.fftSize}, hop_size ${p.hopSize}`);
    }
    const net = await Dfn3Network.create(model, opts);
    const held = (opts.guard ?? true) && (opts.heldVoiceGuard ?? true);
    if (held && (p.sampleRate !== 48_000 || p.hopSize !== RNNOISE_FRAME)) {
      throw new Error(`the held-voice guard needs 48 kHz and a ${RNNOISE_FRAME}-sample hop`);
    }
    const dsp: ChannelDsp = {
      fft: await RealFft.create(p.fftSize),
      window: vorbisWindow(p.fftSize),
      widths: erbWidths(p.sampleRate, p.fftSize, p.nbErb, p.minNbErbFreqs),
      alpha: normAlpha({ ...p, normTau: opts.normSeconds ?? p.normTau }),
      lowCut: lowCutGains(p, opts.highPassHz ?? DEFAULT_HIGH_PASS_HZ),
      startupSamples: opts.startup === 'none' ? 0 : Math.round(STARTUP_SECONDS * p.sampleRate),
      guard: opts.guard ?? true,
      rnnoise: held ? await loadRnnoise() : null,
      alphaUp: normAlpha({ ...p, normTau: opts.normUpSeconds ?? opts.normSeconds ?? p.normTau }),
    };
    return new Denoiser(p, net, dsp);
  }

  get sampleRate(): number {
    return this.params.sampleRate;
  }

  /** A streaming enhancer for one channel at `sampleRate`; its output lines up with its input. */
  channel(opts: ChannelOptions = {}): ChannelEnhancer {
    return new ChannelEnhancer(this.net, this.dsp, opts);
  }

  async close(): Promise<void> {
    await this.net.release();
    this.dsp.fft.dispose();
  }
}
