import { describe, expect, it } from 'vitest';
import { quantizeColumns } from '../../src/separation/matmul-quantization.ts';

describe('quantizeColumns', () => {
  it('stores each column as int8 with its own scale, within half a step of the float weights', () => {
    const k = 5;
    const cols = 3;
    // Columns of very different ranges, so one shared scale would lose the small one.
    const w = Float32Array.from({ length: k * cols }, (_, i) => Math.sin(i + 1) * [1, 0.01, 30][i % cols]!);
    const { q, scale } = quantizeColumns(w, k, cols);
    for (let c = 0; c < cols; c++) {
      const max = Math.max(...Array.from({ length: k }, (_, r) => Math.abs(w[r * cols + c]!)));
      expect(scale[c]).toBeCloseTo(max / 127, 6);
      for (let r = 0; r < k; r++) {
        const i = r * cols + c;
        expect(Math.abs(q[i]!)).toBeLessThanOrEqual(127);
        expect(Math.abs(q[i]! * scale[c]! - w[i]!)).toBeLessThanOrEqual(scale[c]! / 2 + 1e-7);
      }
    }
  });

  it('gives an all-zero column a usable scale', () => {
    const { q, scale } = quantizeColumns(new Float32Array(4), 2, 2);
    expect([...scale]).toEqual([1, 1]);
    expect([...q]).toEqual([0, 0, 0, 0]);
  });
});
