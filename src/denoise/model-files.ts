import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { getModelSpec, type ModelSpec } from '../models/registry.ts';

/** The files this engine reads from a DeepFilterNet3 export (upstream `DeepFilterNet3_onnx.tar.gz`). */
const DFN3_FILE_NAMES = ['enc.onnx', 'erb_dec.onnx', 'df_dec.onnx', 'config.ini'] as const;
export type Dfn3FileName = (typeof DFN3_FILE_NAMES)[number];

/** The model registry's DeepFilterNet3 entry: its pinned checksums and its sample rate. */
export const DFN3_SPEC: ModelSpec = (() => {
  const spec = getModelSpec('dfn3');
  if (!spec) throw new Error('the model registry has no dfn3 entry');
  return spec;
})();

/**
 * The sha256 of every file, pinned in the model registry, so a truncated download or a different
 * export is rejected before it can produce wrong audio.
 */
export const DFN3_FILES = Object.fromEntries(
  DFN3_FILE_NAMES.map((name) => {
    const sha256 = DFN3_SPEC.files.find((f) => f.name === name)?.sha256;
    if (!sha256) throw new Error(`the model registry pins no checksum for dfn3's ${name}`);
    return [name, sha256];
  }),
) as Record<Dfn3FileName, string>;

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
  const params = parseDfConfig(bytes['config.ini'].toString('utf8'));
  if (params.sampleRate !== DFN3_SPEC.sampleRate) {
    throw new ModelFilesError(
      `config.ini: the model runs at ${params.sampleRate} Hz, but its registry entry says ${DFN3_SPEC.sampleRate} Hz`,
    );
  }
  return {
    params,
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
