import { type MdxParams, mdxChunkSize, mdxTrim } from './mdx-params.ts';

/**
 * Where python-audio-separator's MDX separator (`MDXSeparator.demix`) cuts a track into chunks.
 * The track is laid in a "mixture" with `trim` zeros before it and `pad` after it, so its length is
 * a whole number of `gen = chunk - 2 * trim` samples plus `trim`; chunks of `chunk` samples start
 * every `step = int((1 - overlap) * chunk)` samples of the mixture, the last ones running past its
 * end (zero-padded to a whole chunk, blended over the part inside). Output sample `k` of the track
 * is mixture position `trim + k`.
 */
export interface MdxChunkPlan {
  trim: number;
  chunk: number;
  /** Zeros after the track in the mixture. */
  pad: number;
  /** Mixture length: `trim + frames + pad`. */
  length: number;
  step: number;
  /** Mixture positions where the chunks start, in order. */
  starts: number[];
}

export function planMdxChunks(frames: number, p: Pick<MdxParams, 'hop' | 'dimT' | 'nFft' | 'overlap'>): MdxChunkPlan {
  const trim = mdxTrim(p);
  const chunk = mdxChunkSize(p);
  const gen = chunk - 2 * trim;
  if (gen <= 0) throw new Error(`an MDX chunk of ${chunk} samples is shorter than its two trims of ${trim}`);
  const pad = gen + trim - (frames % gen);
  const length = trim + frames + pad;
  const step = Math.trunc((1 - p.overlap) * chunk);
  if (step < 1) throw new Error(`overlap ${p.overlap} leaves no step between chunks`);
  const starts: number[] = [];
  for (let i = 0; i < length; i += step) starts.push(i);
  return { trim, chunk, pad, length, step, starts };
}

/** numpy's `np.hanning(n)`: the symmetric Hann window, zero at both ends (`[1]` for one sample). */
export function symmetricHann(n: number): Float32Array {
  if (n === 1) return Float32Array.of(1);
  return Float32Array.from({ length: n }, (_, k) => 0.5 - 0.5 * Math.cos((2 * Math.PI * k) / (n - 1)));
}
