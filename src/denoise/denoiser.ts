import { ChannelEnhancer, DEFAULT_WINDOWING, type ChannelDsp, type WindowingOptions } from './channel-enhancer.ts';
import { erbWidths } from './erb.ts';
import { RealFft } from './fft.ts';
import { loadDfn3Model, normAlpha, type DfParams } from './model-files.ts';
import { Dfn3Network, type NetworkOptions } from './network.ts';
import { vorbisWindow } from './stft.ts';

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

  static async load(modelDir: string, opts: NetworkOptions = {}): Promise<Denoiser> {
    const model = await loadDfn3Model(modelDir);
    const p = model.params;
    if (p.fftSize % p.hopSize !== 0 || 2 * p.hopSize > p.fftSize) {
      throw new Error(`unsupported DeepFilterNet STFT: fft_size ${p.fftSize}, hop_size ${p.hopSize}`);
    }
    const net = await Dfn3Network.create(model, opts);
    const dsp: ChannelDsp = {
      fft: await RealFft.create(p.fftSize),
      window: vorbisWindow(p.fftSize),
      widths: erbWidths(p.sampleRate, p.fftSize, p.nbErb, p.minNbErbFreqs),
      alpha: normAlpha(p),
    };
    return new Denoiser(p, net, dsp);
  }

  get sampleRate(): number {
    return this.params.sampleRate;
  }

  /** A streaming enhancer for one channel at `sampleRate`; its output lines up with its input. */
  channel(windowing: WindowingOptions = DEFAULT_WINDOWING): ChannelEnhancer {
    return new ChannelEnhancer(this.net, this.dsp, windowing);
  }

  async close(): Promise<void> {
    await this.net.release();
    this.dsp.fft.dispose();
  }
}
