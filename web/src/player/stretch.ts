/**
 * Tempo and pitch for the whole player, on one master bus that every stem's gain feeds, so the
 * stems cannot drift apart: the transport plays every stem at the tempo as its rate (resampled,
 * which raises or lowers the pitch with it), and one Signalsmith Stretch node (MIT, WASM in an
 * AudioWorklet) on the bus transposes the sum back by -12·log2(tempo) semitones plus the pitch asked
 * for. At 100 % and 0 semitones the node is bypassed and the stems play exactly as before.
 *
 * The worklet module is a file of this site (`STRETCH_WORKLET_URL`, built by web/build.mjs), loaded
 * with `audioWorklet.addModule` (CSP `script-src 'self'`); its WebAssembly needs
 * `'wasm-unsafe-eval'`, which allows compiling WebAssembly and nothing else (no JS eval). The
 * library's main-thread half is imported only when tempo or pitch first changes.
 */
declare const STRETCH_WORKLET_URL: string;

/** The node the library makes: an AudioWorkletNode with promise-returning methods. */
export interface StretchNode extends AudioWorkletNode {
  schedule(change: { active?: boolean; semitones?: number; output?: number }): Promise<unknown>;
  latency(): Promise<number>;
}

/** The transposition that keeps the pitch when the stems play at `tempo`, plus `pitch` semitones. */
export function correctionSemitones(tempo: number, pitch: number): number {
  return pitch - 12 * Math.log2(tempo);
}

/** A stretch node in `ctx`, processing what is connected to it (live input), stereo. */
async function createStretchNode(ctx: BaseAudioContext): Promise<StretchNode> {
  await ctx.audioWorklet.addModule(STRETCH_WORKLET_URL);
  const { default: SignalsmithStretch } = await import('signalsmith-stretch');
  const node = (await SignalsmithStretch(ctx, {
    numberOfInputs: 1,
    numberOfOutputs: 1,
    outputChannelCount: [2],
  })) as StretchNode;
  return node;
}

export class PitchBus {
  /** Every stem's gain connects here. */
  readonly input: GainNode;
  /** The transposition now applied (0: bypassed). */
  semitones = 0;
  /** Seconds the node delays what passes through it (known once it is made; the click waits as long). */
  latency = 0;
  private node: Promise<StretchNode> | null = null;
  private routedThrough = false;

  constructor(private readonly ctx: AudioContext) {
    this.input = new GainNode(ctx);
    this.input.connect(ctx.destination);
  }

  /** Whether the stretch node is in the signal path now. */
  get active(): boolean {
    return this.routedThrough;
  }

  /** Transposes the bus by `semitones` (the node is bypassed at 0). */
  async set(semitones: number): Promise<void> {
    this.semitones = semitones;
    if (Math.abs(semitones) < 0.001) {
      if (this.routedThrough) {
        const node = await this.node!;
        this.input.disconnect();
        this.input.connect(this.ctx.destination);
        node.disconnect();
        this.routedThrough = false;
      }
      return;
    }
    this.node ??= createStretchNode(this.ctx);
    const node = await this.node;
    this.latency = await node.latency();
    if (this.semitones !== semitones) return; // a later change overtook this one
    await node.schedule({ active: true, semitones });
    if (!this.routedThrough) {
      node.connect(this.ctx.destination);
      this.input.disconnect();
      this.input.connect(node);
      this.routedThrough = true;
    }
  }
}
