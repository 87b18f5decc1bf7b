import { HTDEMUCS_SOURCES } from './htdemucs-shapes.ts';

/** A stem the engine can write. `instrumental` is everything but the vocals. */
export type StemName = 'vocals' | 'instrumental' | 'drums' | 'bass' | 'other';
export const STEM_NAMES: readonly StemName[] = ['vocals', 'instrumental', 'drums', 'bass', 'other'];

/** The API's output types that the four-source model serves (SIX_STEMS needs `htdemucs_6s`). */
export type FourSourceOutputType = 'VOCALS' | 'INSTRUMENTAL' | 'BOTH' | 'FOUR_STEMS';

/** Stems written for each output type. */
export function stemsForOutputType(type: FourSourceOutputType): StemName[] {
  switch (type) {
    case 'VOCALS':
      return ['vocals'];
    case 'INSTRUMENTAL':
      return ['instrumental'];
    case 'BOTH':
      return ['vocals', 'instrumental'];
    case 'FOUR_STEMS':
      return ['vocals', 'drums', 'bass', 'other'];
  }
}

/**
 * How the instrumental is formed from the network's outputs:
 * - `residual`: the input mixture minus the separated vocals, so vocals + instrumental = input;
 * - `sum`: drums + bass + other.
 * Measured on MUSDB18 "Falcon 69" (bench/separate-quality.ts, docs/separation.md), `residual`
 * scores the higher SDR, so it is the default.
 */
export type InstrumentalMode = 'residual' | 'sum';
export const DEFAULT_INSTRUMENTAL_MODE: InstrumentalMode = 'residual';

const index = (name: string) => HTDEMUCS_SOURCES.indexOf(name as (typeof HTDEMUCS_SOURCES)[number]);
const DRUMS = index('drums');
const BASS = index('bass');
const OTHER = index('other');
const VOCALS = index('vocals');

/**
 * Writes one stem's samples for `n` frames, interleaved stereo, into `out`.
 * `sources` is `[source][channel][n]` in one array, `mix` is `[channel][n]` (planar) in one array.
 */
export function renderStem(
  stem: StemName,
  sources: Float32Array,
  mix: Float32Array,
  n: number,
  mode: InstrumentalMode,
  out: Float32Array,
): void {
  const row = (s: number, c: number) => (s * 2 + c) * n;
  for (let c = 0; c < 2; c++) {
    for (let i = 0; i < n; i++) {
      let v: number;
      switch (stem) {
        case 'vocals':
          v = sources[row(VOCALS, c) + i];
          break;
        case 'drums':
          v = sources[row(DRUMS, c) + i];
          break;
        case 'bass':
          v = sources[row(BASS, c) + i];
          break;
        case 'other':
          v = sources[row(OTHER, c) + i];
          break;
        case 'instrumental':
          v =
            mode === 'residual'
              ? mix[c * n + i] - sources[row(VOCALS, c) + i]
              : sources[row(DRUMS, c) + i] + sources[row(BASS, c) + i] + sources[row(OTHER, c) + i];
          break;
      }
      out[i * 2 + c] = v;
    }
  }
}
