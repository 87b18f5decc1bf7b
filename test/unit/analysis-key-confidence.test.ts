import { describe, expect, it } from 'vitest';
import { chromaContrast, estimateKey, keyConfidenceOf } from '../../src/analysis/key.ts';

// A C major scale weighted like a tune (tonic, third and fifth heavier) and a flat chroma.
const cMajor = [5, 0.2, 3, 0.2, 4, 3, 0.2, 4.5, 0.2, 3, 0.2, 2.5];
const flat = Array.from({ length: 12 }, (_, i) => 1 + 0.02 * Math.sin(i));

describe('key confidence', () => {
  it('measures chroma contrast: high for a scale, near zero for a flat chroma, 0 for silence', () => {
    expect(chromaContrast(cMajor)).toBeGreaterThan(0.5);
    expect(chromaContrast(flat)).toBeLessThan(0.05);
    expect(chromaContrast(new Array(12).fill(0))).toBe(0);
  });

  it('is high for a clear key and falls toward the tonality gate', () => {
    const key = estimateKey(cMajor)!;
    expect(key.name).toBe('C major');
    const gate = 0.5;
    const clear = keyConfidenceOf(key, chromaContrast(cMajor) + gate, gate);
    expect(clear).toBeGreaterThan(0.5);
    expect(clear).toBeLessThanOrEqual(1);
    expect(keyConfidenceOf(key, gate + 0.02, gate)).toBeLessThan(clear / 3);
    expect(keyConfidenceOf(key, gate - 0.1, gate)).toBe(0);
  });

  it('halves when the runner-up key is as good', () => {
    const key = estimateKey(cMajor)!;
    const tie = keyConfidenceOf({ ...key, margin: 0 }, 1, 0.5);
    expect(tie).toBeCloseTo(keyConfidenceOf({ ...key, margin: 1 }, 1, 0.5) / 2, 6);
  });
});
