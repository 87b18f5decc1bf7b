import type { StemName } from '../domain/vocabulary.ts';

/** A stem the engine can write (`instrumental` is everything but the vocals). */
export type { StemName };
export const STEM_NAMES: readonly StemName[] = ['vocals', 'instrumental', 'drums', 'bass', 'other', 'piano', 'guitar'];

/**
 * How the instrumental is formed from the network's outputs:
 * - `residual`: the input mixture minus the separated vocals, so vocals + instrumental = input;
 * - `sum`: the sum of every source but the vocals.
 * Measured on MUSDB18 "Falcon 69" (bench/separate-quality.ts, docs/separation.md), `residual`
 * scores the higher SDR, so it is the default.
 */
export type InstrumentalMode = 'residual' | 'sum';
export const DEFAULT_INSTRUMENTAL_MODE: InstrumentalMode = 'residual';

/** Throws unless every stem can be made from a model with these sources. */
export function checkStemsAvailable(stems: readonly StemName[], sources: readonly string[]): void {
  for (const stem of stems) {
    if (stem !== 'instrumental' && !sources.includes(stem)) {
      throw new Error(`the '${stem}' stem needs a model that separates it (this one gives ${sources.join(', ')})`);
    }
  }
  if (stems.includes('instrumental') && !sources.includes('vocals'))
    throw new Error('the instrumental needs a model that separates vocals');
}

/**
 * Writes one stem's samples for `n` frames, interleaved stereo, into `out`. `sources` is
 * `[source][channel][n]` in one array, in the order of `sourceNames`; `mix` is `[channel][n]`
 * (planar) in one array.
 */
export function renderStem(
  stem: StemName,
  sources: Float32Array,
  sourceNames: readonly string[],
  mix: Float32Array,
  n: number,
  mode: InstrumentalMode,
  out: Float32Array,
): void {
  const row = (s: number, c: number) => (s * 2 + c) * n;
  const vocals = sourceNames.indexOf('vocals');
  for (let c = 0; c < 2; c++) {
    if (stem !== 'instrumental') {
      const from = row(sourceNames.indexOf(stem), c);
      for (let i = 0; i < n; i++) out[i * 2 + c] = sources[from + i]!;
    } else if (mode === 'residual') {
      const v = row(vocals, c);
      for (let i = 0; i < n; i++) out[i * 2 + c] = mix[c * n + i]! - sources[v + i]!;
    } else {
      for (let i = 0; i < n; i++) out[i * 2 + c] = 0;
      sourceNames.forEach((_, s) => {
        if (s === vocals) return;
        const from = row(s, c);
        for (let i = 0; i < n; i++) out[i * 2 + c]! += sources[from + i]!;
      });
    }
  }
}
