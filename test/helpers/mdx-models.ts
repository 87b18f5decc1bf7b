import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { decodeToPlanar } from '../../support/decode-planar.ts';
import { type SyntheticMdx, SYNTHETIC_MDX_CARD, syntheticMdxModel } from '../../support/mdx-synthetic-models.ts';
import { sharedPath } from '../../support/shared.ts';
import { siSdr } from '../../support/si-sdr.ts';

const repo = resolve(import.meta.dirname, '../..');

/** A synthetic MDX-Net model (support/mdx-synthetic-models.ts) with its sha256, for a local HTTP server. */
export function syntheticMdx(kind: SyntheticMdx): { bytes: Buffer; sha256: string } {
  const bytes = syntheticMdxModel(kind, SYNTHETIC_MDX_CARD.mdx_dim_f_set, 2 ** SYNTHETIC_MDX_CARD.mdx_dim_t_set);
  return { bytes, sha256: createHash('sha256').update(bytes).digest('hex') };
}

/** Writes the synthetic models' card (a model-data entry plus the family) to `path`. */
export function writeMdxCard(path: string, over: Record<string, unknown> = {}): string {
  writeFileSync(path, JSON.stringify({ ...SYNTHETIC_MDX_CARD, ...over }));
  return path;
}

/**
 * A stereo input whose channels differ (vocals and drums of the MUSDB excerpt, mixed differently
 * per side) and whose peak is above 0.9, so the pipeline's peak normalisation acts: 44.1 kHz WAV.
 */
export function stereoMdxInput(path: string, seconds = 6): string {
  const stem = (s: string) => sharedPath('audio', 'musdb-falcon69', `${s}.wav`);
  execFileSync('ffmpeg', [
    ...['-v', 'error', '-y', '-i', stem('vocals'), '-i', stem('drums'), '-i', stem('bass')],
    '-filter_complex',
    `[0][1][2]amerge=inputs=3,pan=stereo|c0=1.6*c0+0.5*c2|c1=1.4*c3+2.5*c5,volume=2.2,atrim=0:${seconds}`,
    ...['-ar', '44100', '-c:a', 'pcm_f32le', path],
  ]);
  return path;
}

/**
 * What python-audio-separator's pipeline gives for `network` on `input`, from the independent numpy
 * reference (tools/mdx-reference/mdx_reference.py): primary and secondary stem, planar per channel.
 */
export function mdxReference(
  input: string,
  cardPath: string,
  network: SyntheticMdx,
  workDir: string,
): { primary: Float32Array[]; secondary: Float32Array[] } {
  const out = [join(workDir, `${network}-primary.f32`), join(workDir, `${network}-secondary.f32`)];
  execFileSync('python3', [join(repo, 'tools/mdx-reference/mdx_reference.py'), input, cardPath, network, ...out]);
  const planar = (path: string) => {
    const raw = readFileSync(path);
    const f = new Float32Array(raw.buffer, raw.byteOffset, raw.byteLength / 4);
    const n = f.length / 2;
    return [0, 1].map((c) => Float32Array.from({ length: n }, (_, i) => f[2 * i + c]!));
  };
  return { primary: planar(out[0]!), secondary: planar(out[1]!) };
}

/** SI-SDR of each channel of an output file against the reference's channels. */
export async function channelSiSdr(file: string, reference: Float32Array[]): Promise<number[]> {
  const ours = (await decodeToPlanar(file)).channels;
  return [0, 1].map((c) => {
    const want = reference[c]!;
    const got = ours[c]!;
    if (got.length !== want.length) throw new Error(`${file}: ${got.length} samples, the reference ${want.length}`);
    return siSdr(want, got);
  });
}
