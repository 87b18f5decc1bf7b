import { describe, expect, it } from 'vitest';
import { camelot, formatKey, parseKey } from '../../src/analysis/key-names.ts';
import { mirexKeyScore, tempoHit, tempoHitOctave } from '../../support/analyze-metrics.ts';

describe('key names', () => {
  it('spells keys by their key signature', () => {
    expect(formatKey({ tonic: 3, mode: 'major' })).toBe('Eb major');
    expect(formatKey({ tonic: 1, mode: 'minor' })).toBe('C# minor');
    expect(formatKey({ tonic: 6, mode: 'major' })).toBe('F# major');
    expect(formatKey({ tonic: 3, mode: 'minor' })).toBe('Eb minor');
    expect(formatKey({ tonic: 8, mode: 'minor' })).toBe('G# minor');
    expect(formatKey({ tonic: 10, mode: 'minor' })).toBe('Bb minor');
  });

  it('parses the common spellings', () => {
    expect(parseKey('Eb major')).toEqual({ tonic: 3, mode: 'major' });
    expect(parseKey('D# minor')).toEqual({ tonic: 3, mode: 'minor' });
    expect(parseKey('F#m')).toEqual({ tonic: 6, mode: 'minor' });
    expect(parseKey('B♭ min')).toEqual({ tonic: 10, mode: 'minor' });
    expect(parseKey('C')).toEqual({ tonic: 0, mode: 'major' });
    expect(parseKey('H major')).toBeNull();
  });

  it('maps keys onto the Camelot wheel', () => {
    expect(camelot({ tonic: 0, mode: 'major' })).toBe('8B');
    expect(camelot({ tonic: 9, mode: 'minor' })).toBe('8A');
    expect(camelot({ tonic: 3, mode: 'major' })).toBe('5B');
    expect(camelot({ tonic: 6, mode: 'major' })).toBe('2B');
    expect(camelot({ tonic: 3, mode: 'minor' })).toBe('2A');
    expect(camelot({ tonic: 11, mode: 'major' })).toBe('1B');
    expect(camelot({ tonic: 8, mode: 'minor' })).toBe('1A');
  });
});

describe('benchmark metrics', () => {
  it('scores keys the MIREX way', () => {
    expect(mirexKeyScore('Eb major', 'Eb major')).toBe(1);
    expect(mirexKeyScore('Bb major', 'Eb major')).toBe(0.5);
    expect(mirexKeyScore('Ab major', 'Eb major')).toBe(0.5);
    expect(mirexKeyScore('C minor', 'Eb major')).toBe(0.3);
    expect(mirexKeyScore('Eb major', 'C minor')).toBe(0.3);
    expect(mirexKeyScore('Eb minor', 'Eb major')).toBe(0.2);
    expect(mirexKeyScore('E major', 'Eb major')).toBe(0);
    expect(mirexKeyScore(null, 'Eb major')).toBe(0);
  });

  it('counts tempo hits within 4 %, and octave hits separately', () => {
    expect(tempoHit(125, 126)).toBe(true);
    expect(tempoHit(63, 126)).toBe(false);
    expect(tempoHitOctave(63, 126)).toBe(true);
    expect(tempoHit(null, 126)).toBe(false);
  });
});
