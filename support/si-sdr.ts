/**
 * Scale-invariant signal-to-distortion ratio in dB (Le Roux et al., "SDR – half-baked or well
 * done?", ICASSP 2019): the estimate is projected on the reference, and the ratio of the projection's
 * energy to the residual's is reported. Both signals are mean-removed; lengths are cut to the shorter.
 */
export function siSdr(reference: Float32Array, estimate: Float32Array): number {
  const n = Math.min(reference.length, estimate.length);
  let mr = 0;
  let me = 0;
  for (let i = 0; i < n; i++) {
    mr += reference[i]!;
    me += estimate[i]!;
  }
  mr /= n;
  me /= n;
  let dot = 0;
  let rr = 0;
  for (let i = 0; i < n; i++) {
    const r = reference[i]! - mr;
    dot += r * (estimate[i]! - me);
    rr += r * r;
  }
  const scale = dot / (rr + 1e-12);
  let target = 0;
  let noise = 0;
  for (let i = 0; i < n; i++) {
    const t = scale * (reference[i]! - mr);
    const d = estimate[i]! - me - t;
    target += t * t;
    noise += d * d;
  }
  return 10 * Math.log10((target + 1e-12) / (noise + 1e-12));
}
