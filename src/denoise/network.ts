import ort from 'onnxruntime-node';
import { type ExecutionProvider, sessionProviders } from '../models/registry.ts';
import { DFN3_SPEC, type Dfn3Model, type DfParams } from './model-files.ts';

/*
 * The three DeepFilterNet3 graphs as exported upstream (df/scripts/export.py): the encoder, the ERB
 * mask decoder and the deep-filter coefficient decoder. They are *sequence* models: every input has
 * a free time axis S, the GRUs start from a zero state inside the graph and no hidden state is
 * exposed, and the time convolutions pad causally with zeros. Streaming is therefore done by the
 * caller with overlapping windows (see channel-enhancer.ts), not by carrying state through ORT.
 */

export interface NetworkOptions {
  executionProvider?: ExecutionProvider;
  /** ORT intra-op threads; 0 or undefined = 1 (the GRUs are sequential; more threads were slower here). */
  threads?: number;
}

export interface NetworkOutput {
  /** ERB gains in [0, 1], [S, nbErb]. */
  mask: Float32Array;
  /** Deep-filter taps, [S, nbDf, dfOrder, 2] (complex, tap 0 = oldest frame). */
  coefs: Float32Array;
  /** The encoder's local SNR estimate per frame, dB, [S]. */
  lsnr: Float32Array;
}

export class Dfn3Network {
  private constructor(
    readonly params: DfParams,
    private readonly enc: ort.InferenceSession,
    private readonly erbDec: ort.InferenceSession,
    private readonly dfDec: ort.InferenceSession,
  ) {}

  static async create(model: Dfn3Model, opts: NetworkOptions = {}): Promise<Dfn3Network> {
    const sessionOptions: ort.InferenceSession.SessionOptions = {
      executionProviders: [...sessionProviders(DFN3_SPEC, opts.executionProvider ?? 'cpu')],
      intraOpNumThreads: opts.threads && opts.threads > 0 ? opts.threads : 1,
      interOpNumThreads: 1,
      graphOptimizationLevel: 'all',
    };
    const [enc, erbDec, dfDec] = await Promise.all([
      ort.InferenceSession.create(model.enc, sessionOptions),
      ort.InferenceSession.create(model.erbDec, sessionOptions),
      ort.InferenceSession.create(model.dfDec, sessionOptions),
    ]);
    return new Dfn3Network(model.params, enc, erbDec, dfDec);
  }

  /**
   * Runs the three graphs over S frames of features: `featErb` is [S, nbErb], `featSpec` is
   * [2, S, nbDf] (real plane, then imaginary plane), both already shifted by conv_lookahead.
   */
  async run(featErb: Float32Array, featSpec: Float32Array, frames: number): Promise<NetworkOutput> {
    const { nbErb, nbDf } = this.params;
    const e = await this.enc.run({
      feat_erb: new ort.Tensor('float32', featErb.subarray(0, frames * nbErb), [1, 1, frames, nbErb]),
      feat_spec: new ort.Tensor('float32', featSpec.subarray(0, 2 * frames * nbDf), [1, 2, frames, nbDf]),
    });
    const emb = output(e, 'emb');
    const [m, c] = await Promise.all([
      this.erbDec.run({ emb, e3: output(e, 'e3'), e2: output(e, 'e2'), e1: output(e, 'e1'), e0: output(e, 'e0') }),
      this.dfDec.run({ emb, c0: output(e, 'c0') }),
    ]);
    const lsnrOut = output(e, 'lsnr');
    const lsnr = lsnrOut.data as Float32Array;
    for (const t of Object.values(e)) if (t !== lsnrOut) t.dispose();
    const mask = output(m, 'm').data as Float32Array;
    const coefsOut = output(c, 'coefs');
    const coefs = coefsOut.data as Float32Array;
    for (const t of Object.values(c)) if (t !== coefsOut) t.dispose();
    return { mask, coefs, lsnr };
  }

  async release(): Promise<void> {
    await Promise.all([this.enc.release(), this.erbDec.release(), this.dfDec.release()]);
  }
}

/** A named output of one of the graphs: a file without it is not the DeepFilterNet3 export. */
function output(outputs: ort.InferenceSession.ReturnType, name: string): ort.Tensor {
  const t = outputs[name];
  if (!t)
    throw new Error(`the DeepFilterNet3 graph has no output '${name}' (outputs: ${Object.keys(outputs).join(', ')})`);
  return t;
}
