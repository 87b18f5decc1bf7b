import { enhanceFrame } from './deep-filter.ts';
import { FeatureExtractor, gatherWindow } from './features.ts';
import { FrameBuffer } from './frame-buffer.ts';
import { FrameGuards, type GuardDsp } from './frame-guards.ts';
import type { Dfn3Network } from './network.ts';
import { StftAnalyzer, StftSynthesizer } from './stft.ts';

/**
 * Windowing of the sequence network over an endless stream. The DSP state (STFT memories and the
 * running feature normalisations) is carried exactly from frame to frame; only the network runs on
 * windows: each window re-reads `contextFrames` earlier frames so that the GRUs, which start from
 * zero in the exported graphs, are warmed up before the frames it keeps, and its last
 * `crossfadeFrames` enhanced spectra are blended linearly with the next window's first ones.
 */
export interface WindowingOptions {
  /** Frames kept from each network run (10 ms each). */
  blockFrames: number;
  /** Frames of warm-up re-run before each block (discarded). */
  contextFrames: number;
  /** Frames over which consecutive blocks are cross-faded. */
  crossfadeFrames: number;
}

export const DEFAULT_WINDOWING: WindowingOptions = { blockFrames: 1000, contextFrames: 200, crossfadeFrames: 20 };

export interface ChannelDsp extends GuardDsp {
  /** Smoothing factors of the feature normalisations per frame: falling (and by default rising), rising. */
  alpha: number;
  alphaUp: number;
  /** Samples of the opening used for the start-up (mirrored warm-up, state init); 0 = upstream's cold start. */
  startupSamples: number;
}

export interface ChannelOptions {
  windowing?: WindowingOptions;
  /**
   * Most noise reduction allowed, dB (upstream's `atten_lim_db`): the enhanced spectrum is blended
   * with the noisy one as enh * (1 - l) + noisy * l, l = 10^(-dB/20). Undefined or 0 = no limit.
   */
  attenuationLimitDb?: number;
}

/** Enhances one channel of 48 kHz audio, streaming: output samples line up with input samples. */
export class ChannelEnhancer {
  private readonly hop: number;
  private readonly freqBins: number;
  private readonly lookahead: number;
  private readonly analyzer: StftAnalyzer;
  private readonly synthesizer: StftSynthesizer;
  private readonly features: FeatureExtractor;
  private readonly spec: FrameBuffer;
  private readonly erb: FrameBuffer;
  private readonly cplx: FrameBuffer;
  /** The output guards, the attenuation limit and the high-pass (frame-guards.ts). */
  private readonly guards: FrameGuards;
  private readonly hopBuf: Float32Array;
  private hopFill = 0;
  private nextStart = 0;
  private tail: Float32Array[] = [];
  private delayLeft: number;
  private samplesIn = 0;
  private samplesOut = 0;
  private out: Float32Array[] = [];
  private readonly featErb: Float32Array;
  private readonly featSpec: Float32Array;
  private readonly frameOut: Float32Array;
  private readonly hopOut: Float32Array;
  private readonly win: WindowingOptions;
  private opening: Float32Array[] | undefined = [];
  private openingLength = 0;

  constructor(
    private readonly net: Dfn3Network,
    private readonly dsp: ChannelDsp,
    opts: ChannelOptions = {},
  ) {
    this.win = opts.windowing ?? DEFAULT_WINDOWING;
    const lim = opts.attenuationLimitDb;
    const win = this.win;
    const p = net.params;
    this.hop = p.hopSize;
    this.freqBins = p.fftSize / 2 + 1;
    // Features are read conv_lookahead frames ahead (DfNet.pad_feat) and the deep filter reads
    // df_lookahead spectra ahead: a block can run once this many frames past its end exist.
    this.lookahead = Math.max(p.convLookahead, p.dfLookahead);
    this.analyzer = new StftAnalyzer(dsp.fft, dsp.window, p.hopSize);
    this.synthesizer = new StftSynthesizer(dsp.fft, dsp.window, p.hopSize);
    this.features = new FeatureExtractor(dsp.widths, p.nbDf, dsp.alpha, dsp.alphaUp);
    const rows = win.blockFrames + win.contextFrames + win.crossfadeFrames + p.dfOrder + this.lookahead + 8;
    this.spec = new FrameBuffer(2 * this.freqBins, rows);
    this.erb = new FrameBuffer(p.nbErb, rows);
    this.cplx = new FrameBuffer(2 * p.nbDf, rows);
    this.guards = new FrameGuards(dsp, rows, lim !== undefined && Math.abs(lim) > 0 ? 10 ** (-Math.abs(lim) / 20) : 0);
    this.hopBuf = new Float32Array(p.hopSize);
    this.delayLeft = p.fftSize - p.hopSize;
    const maxFrames = win.blockFrames + win.contextFrames + win.crossfadeFrames;
    this.featErb = new Float32Array(maxFrames * p.nbErb);
    this.featSpec = new Float32Array(maxFrames * 2 * p.nbDf);
    this.frameOut = new Float32Array(2 * this.freqBins);
    this.hopOut = new Float32Array(p.hopSize);
  }

  /** Feeds samples; returns the enhanced samples that became ready (possibly none). */
  async push(samples: Float32Array): Promise<Float32Array> {
    this.samplesIn += samples.length;
    if (this.opening) {
      this.opening.push(samples.slice());
      this.openingLength += samples.length;
      if (this.openingLength < this.dsp.startupSamples) return new Float32Array(0);
      this.start();
    } else {
      this.feed(samples);
    }
    const { blockFrames, crossfadeFrames } = this.win;
    while (
      this.spec.end >=
      this.nextStart + blockFrames + crossfadeFrames + this.lookahead + this.guards.floorAhead(this.nextStart)
    ) {
      await this.runWindow(false);
    }
    return this.takeOutput(Infinity);
  }

  /**
   * Cleans a whole signal held in memory, fed in `chunk`-sample pieces as a stream would be, then
   * finished: for tests and benchmarks. The result is every piece the stream gave, joined.
   */
  async enhanceAll(x: Float32Array, chunk = 48_000): Promise<Float32Array> {
    const parts: Float32Array[] = [];
    for (let i = 0; i < x.length; i += chunk) parts.push(await this.push(x.subarray(i, i + chunk)));
    parts.push(await this.finish());
    const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
    let o = 0;
    for (const p of parts) {
      out.set(p, o);
      o += p.length;
    }
    return out;
  }

  /** Ends the stream: flushes the remaining frames. The total output length equals the input's. */
  async finish(): Promise<Float32Array> {
    const total = this.samplesIn;
    if (this.opening) this.start();
    // Like df/enhance.py: pad one FFT length of zeros so the last input samples leave the STFT.
    this.feed(new Float32Array(this.dsp.window.length));
    if (this.hopFill > 0) this.feed(new Float32Array(this.hop - this.hopFill));
    while (this.nextStart < this.spec.end) await this.runWindow(true);
    this.guards.close();
    return this.takeOutput(total - this.samplesOut);
  }

  /*
   * Start-up. Upstream starts the network's GRUs and convolutions from zeros and the running
   * normalisations from fixed ramps, so the first frames are cleaned without any context. Once the
   * opening (startupSamples, or the whole input if shorter) is here, it is fed time-reversed first
   * (mirror padding, sample 0 not repeated): the GRUs, the normalisations and the deep filter's past
   * taps have settled on this very recording when its first real sample arrives; the mirrored
   * part's output is dropped. (Starting the normalisations at the opening's own averages instead
   * was measured too, and was worse than both: docs/denoise.md.)
   */
  private start(): void {
    const parts = this.opening ?? [];
    this.opening = undefined;
    const x = new Float32Array(this.openingLength);
    let o = 0;
    for (const part of parts) {
      x.set(part, o);
      o += part.length;
    }
    const n = Math.min(this.dsp.startupSamples, x.length - 1);
    if (n > 0) {
      const mirror = new Float32Array(n);
      for (let i = 0; i < n; i++) mirror[i] = x[n - i]!;
      this.delayLeft += n;
      this.guards.firstFrame = this.spec.end + Math.floor(n / this.hop);
      this.feed(mirror);
    }
    this.feed(x);
  }

  private feed(samples: Float32Array): void {
    let i = 0;
    while (i < samples.length) {
      const n = Math.min(this.hop - this.hopFill, samples.length - i);
      this.hopBuf.set(samples.subarray(i, i + n), this.hopFill);
      this.hopFill += n;
      i += n;
      if (this.hopFill === this.hop) {
        this.hopFill = 0;
        const spec = this.spec.push();
        this.analyzer.analyze(this.hopBuf, spec);
        this.features.extract(spec, this.erb.push(), this.cplx.push());
        this.guards.track(this.hopBuf, spec, this.spec.end);
      }
    }
  }

  private async runWindow(final: boolean): Promise<void> {
    const p = this.net.params;
    const { blockFrames, contextFrames, crossfadeFrames } = this.win;
    const known = this.spec.end;
    const s = this.nextStart;
    const e = final ? Math.min(s + blockFrames, known) : s + blockFrames;
    const e2 = final ? Math.min(e + crossfadeFrames, known) : e + crossfadeFrames;
    const a = Math.max(0, s - contextFrames);
    const frames = e2 - a;
    const { nbErb, nbDf } = p;
    gatherWindow(this.erb, this.cplx, a + p.convLookahead, frames, this.featErb, this.featSpec);
    const { mask, coefs, lsnr } = await this.net.run(this.featErb, this.featSpec, frames);
    const coefStride = nbDf * p.dfOrder * 2;
    const noisy = (k: number) => this.spec.row(k);
    const newTail: Float32Array[] = [];
    for (let j = s; j < e2; j++) {
      const r = j - a;
      const y = this.frameOut;
      enhanceFrame(
        { nbDf, dfOrder: p.dfOrder, dfLookahead: p.dfLookahead, freqBins: this.freqBins },
        j,
        noisy,
        mask.subarray(r * nbErb, (r + 1) * nbErb),
        coefs.subarray(r * coefStride, (r + 1) * coefStride),
        this.dsp.widths,
        y,
      );
      this.guards.apply(j, noisy(j), y, lsnr, r);
      const prev = this.tail[j - s];
      if (prev) {
        const w = (j - s + 0.5) / this.tail.length;
        for (let i = 0; i < y.length; i++) y[i] = prev[i]! + w * (y[i]! - prev[i]!);
      }
      if (j < e) this.emit(y);
      else newTail.push(y.slice());
    }
    this.tail = newTail;
    this.nextStart = e;
    const keepFrom = e - contextFrames - p.dfOrder;
    this.spec.dropBefore(keepFrom);
    this.erb.dropBefore(keepFrom);
    this.cplx.dropBefore(keepFrom);
    this.guards.dropBefore(keepFrom);
  }

  private emit(spec: Float32Array): void {
    this.synthesizer.synthesize(spec, this.hopOut);
    let from = 0;
    if (this.delayLeft > 0) {
      from = Math.min(this.delayLeft, this.hop);
      this.delayLeft -= from;
    }
    if (from < this.hop) this.out.push(this.hopOut.slice(from));
  }

  private takeOutput(limit: number): Float32Array {
    let n = 0;
    for (const c of this.out) n += c.length;
    n = Math.max(0, Math.min(n, limit));
    const result = new Float32Array(n);
    let o = 0;
    for (const c of this.out) {
      if (o >= n) break;
      const take = Math.min(c.length, n - o);
      result.set(c.subarray(0, take), o);
      o += take;
    }
    this.out = [];
    this.samplesOut += n;
    return result;
  }
}
