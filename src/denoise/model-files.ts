import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The registry name of the DeepFilterNet3 model (voice cleaning, `denoiseVocals`). */
export const DENOISE_MODEL = 'dfn3';

/**
 * The DeepFilterNet3 ONNX export (upstream `DeepFilterNet3_onnx.tar.gz`: enc.onnx, erb_dec.onnx,
 * df_dec.onnx, config.ini). The sha256 of every file is pinned here so a truncated download or a
 * different export is rejected before it can produce wrong audio.
 */
export const DFN3_FILES = {
  'enc.onnx': '7c5399d3da8a50ebef1c1a0ae421b33376aa5e45d0e92df16da7e83c9c131916',
  'erb_dec.onnx': 'ab669a1d10afe20911728b33053a452071042317a90581092b325da7b2f9d895',
  'df_dec.onnx': '23114ce3b0f6464b763ee62f7bb8aab6b2a129a21eabd5bcfe59413db05f278a',
  'config.ini': '415eb925d44990d938fb739f514aa3662c1ec0ea836cff044fa1291b82cb4290',
} as const;

export type Dfn3FileName = keyof typeof DFN3_FILES;

/** The model's signal-processing parameters, read from config.ini sections [df] and [deepfilternet]. */
export interface DfParams {
  sampleRate: number;
  fftSize: number;
  hopSize: number;
  nbErb: number;
  nbDf: number;
  minNbErbFreqs: number;
  /** Time constant (s) of the running feature normalisation. */
  normTau: number;
  dfOrder: number;
  dfLookahead: number;
  convLookahead: number;
}

export class ModelFilesError extends Error {
  override name = 'ModelFilesError';
}

export interface Dfn3Model {
  params: DfParams;
  enc: Uint8Array;
  erbDec: Uint8Array;
  dfDec: Uint8Array;
}

/**
 * Reads the model directory and checks every file against its pinned sha256.
 * Throws ModelFilesError naming the missing or mismatching file.
 */
export async function loadDfn3Model(modelDir: string): Promise<Dfn3Model> {
  const bytes = {} as Record<Dfn3FileName, Buffer>;
  for (const [name, expected] of Object.entries(DFN3_FILES) as [Dfn3FileName, string][]) {
    const path = join(modelDir, name);
    let data: Buffer;
    try {
      data = await readFile(path);
    } catch (err) {
      throw new ModelFilesError(
        `DeepFilterNet3 model file missing: ${path} (${(err as NodeJS.ErrnoException).code ?? 'unreadable'})`,
      );
    }
    const actual = createHash('sha256').update(data).digest('hex');
    if (actual !== expected) {
      throw new ModelFilesError(`checksum mismatch for ${path}: expected sha256 ${expected}, got ${actual}`);
    }
    bytes[name] = data;
  }
  return {
    params: parseDfConfig(bytes['config.ini'].toString('utf8')),
    enc: bytes['enc.onnx'],
    erbDec: bytes['erb_dec.onnx'],
    dfDec: bytes['df_dec.onnx'],
  };
}

/** Parses the INI text of DeepFilterNet's config.ini into the parameters the DSP needs. */
export function parseDfConfig(text: string): DfParams {
  const sections = new Map<string, Map<string, string>>();
  let current = new Map<string, string>();
  sections.set('', current);
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      current = new Map();
      sections.set((header[1] ?? '').trim().toLowerCase(), current);
      continue;
    }
    const eq = line.indexOf('=');
    if (eq > 0) current.set(line.slice(0, eq).trim().toLowerCase(), line.slice(eq + 1).trim());
  }
  const get = (section: string, key: string, fallbackSection?: string): number => {
    const v =
      sections.get(section)?.get(key) ?? (fallbackSection ? sections.get(fallbackSection)?.get(key) : undefined);
    const n = v === undefined ? NaN : Number(v);
    if (!Number.isFinite(n)) throw new ModelFilesError(`config.ini: [${section}] ${key} missing or not a number`);
    return n;
  };
  return {
    sampleRate: get('df', 'sr'),
    fftSize: get('df', 'fft_size'),
    hopSize: get('df', 'hop_size'),
    nbErb: get('df', 'nb_erb'),
    nbDf: get('df', 'nb_df'),
    minNbErbFreqs: get('df', 'min_nb_erb_freqs'),
    normTau: get('df', 'norm_tau'),
    dfOrder: get('df', 'df_order', 'deepfilternet'),
    dfLookahead: get('df', 'df_lookahead', 'deepfilternet'),
    convLookahead: get('deepfilternet', 'conv_lookahead'),
  };
}

/**
 * Decay of the running normalisations for one hop, as libDF computes it: exp(-hop/sr/tau), rounded
 * to the fewest decimals (from 3) that keep it below 1 (0.99 for 10 ms hops and tau = 1 s).
 */
export function normAlpha(p: DfParams): number {
  const alpha = Math.exp(-p.hopSize / p.sampleRate / p.normTau);
  for (let precision = 3; ; precision++) {
    const scale = 10 ** precision;
    const a = Math.round(alpha * scale) / scale;
    if (a < 1) return a;
  }
}
