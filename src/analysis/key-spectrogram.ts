import { CHROMA_FRAME, CHROMA_HOP } from './chroma.ts';
import { Framer } from './frames.ts';
import { MagnitudeSpectrum } from './spectrum.ts';

/** The learned key model's input: six octaves of semitones, C2 (65 Hz) to B7 (3.95 kHz). */
export const KEY_LOW_MIDI = 36;
export const KEY_SEMITONES = 72;
/** Kept per frame until the tuning is known: 10 cents a bin, half a semitone of margin each side. */
const FINE_PER_SEMITONE = 10;
const FINE_MARGIN = FINE_PER_SEMITONE;
const FINE_BINS = (KEY_SEMITONES + 2) * FINE_PER_SEMITONE;
/** MIDI pitch of fine bin 0's lower edge. */
const FINE_LOW_MIDI = KEY_LOW_MIDI - 0.5 - FINE_MARGIN / FINE_PER_SEMITONE;

/**
 * A semitone spectrogram for the learned key model (key-model.ts): the largest FFT magnitude
 * within each semitone, centred on the tuning the chroma measured, frame by frame (the chroma's
 * 370 ms frames and hop, so both read the same frames). The maximum rather than a sum, so a
 * partial reads the same at any height while a band of noise does not grow with the band's width.
 * Frames are kept at 10-cent resolution (2.9 kB each, 9 MB for ten minutes) until the whole input
 * has been seen and the tuning is known.
 */
export class KeySpectrogram {
  private readonly framer: Framer;
  private readonly spectrum = new MagnitudeSpectrum(CHROMA_FRAME);
  private readonly mags: Float32Array;
  /** FFT bin -> fine bin (-1 outside the range). */
  private readonly fineOf: Int32Array;
  private readonly frames: Float32Array[] = [];

  constructor(readonly sampleRate: number) {
    this.mags = new Float32Array(this.spectrum.bins);
    this.fineOf = new Int32Array(this.spectrum.bins).fill(-1);
    const binHz = sampleRate / CHROMA_FRAME;
    for (let k = 1; k < this.spectrum.bins; k++) {
      const midi = 69 + 12 * Math.log2((k * binHz) / 440);
      const f = Math.floor((midi - FINE_LOW_MIDI) * FINE_PER_SEMITONE);
      if (f >= 0 && f < FINE_BINS) this.fineOf[k] = f;
    }
    this.framer = new Framer(CHROMA_FRAME, CHROMA_HOP, (frame) => this.onFrame(frame));
  }

  push(samples: Float32Array): void {
    this.framer.push(samples);
  }

  get frameCount(): number {
    return this.frames.length;
  }

  private onFrame(frame: Float32Array): void {
    this.spectrum.compute(frame, this.mags);
    const fine = new Float32Array(FINE_BINS);
    for (let k = 1; k < this.mags.length; k++) {
      const f = this.fineOf[k]!;
      if (f >= 0 && this.mags[k]! > fine[f]!) fine[f] = this.mags[k]!;
    }
    this.frames.push(fine);
  }

  /**
   * Frames x KEY_SEMITONES, row-major: each semitone's largest magnitude within ±50 cents of its
   * centre moved by `tuning` (semitones, -0.5..0.5, from estimateTuning).
   */
  semitones(tuning: number): Float32Array {
    const shift = Math.round(tuning * FINE_PER_SEMITONE);
    const out = new Float32Array(this.frames.length * KEY_SEMITONES);
    for (let t = 0; t < this.frames.length; t++) {
      const fine = this.frames[t]!;
      for (let s = 0; s < KEY_SEMITONES; s++) {
        const lo = FINE_MARGIN + s * FINE_PER_SEMITONE + shift;
        let v = 0;
        for (let f = lo; f < lo + FINE_PER_SEMITONE; f++) if (fine[f]! > v) v = fine[f]!;
        out[t * KEY_SEMITONES + s] = v;
      }
    }
    return out;
  }
}
