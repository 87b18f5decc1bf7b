/** Signal-to-noise ratio in dB of `estimate` against `reference` (planar channels, over the shorter length). */
export function snrDb(reference: Float32Array[], estimate: Float32Array[]): number {
  let sig = 0;
  let err = 0;
  for (let c = 0; c < reference.length; c++) {
    const n = Math.min(reference[c]!.length, estimate[c]!.length);
    for (let i = 0; i < n; i++) {
      sig += reference[c]![i]! ** 2;
      err += (reference[c]![i]! - estimate[c]![i]!) ** 2;
    }
  }
  return 10 * Math.log10(sig / Math.max(err, 1e-12));
}
