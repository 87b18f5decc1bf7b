// Beats, downbeats and chords of one input, from the features analyzeAudioDetailed already streamed.
import { type BeatOptions, snapToOnsets, trackBeats } from './beats.ts';
import { CHROMA_FRAME, CHROMA_HOP, foldChroma } from './chroma.ts';
import { type ChordOptions, recogniseChords } from './chords.ts';
import { type DownbeatOptions, findDownbeats } from './downbeats.ts';
import { ONSET_FRAME, ONSET_HOP } from './onset-envelope.ts';
import { preprocess } from './tempo.ts';

export interface Chord {
  /** Seconds, 3 decimals. */
  start: number;
  end: number;
  /** "C", "C#m", "Eb", ... (chordName), or "N" where no chord sounds. */
  chord: string;
  confidence: number;
}

export interface BeatsAndChords {
  /** Beat times in seconds (3 decimals); empty when there is no tempo. */
  beats: number[];
  /** The beats that start a bar (a subset of `beats`). */
  downbeats: number[];
  /** 3 or 4; null without beats. */
  beatsPerBar: number | null;
  /** 0-1, see BeatTrack.confidence; null without beats. */
  beatConfidence: number | null;
  chords: Chord[];
}

export interface RhythmFeatures {
  sampleRate: number;
  /** Onset envelope (the tempo's) and its body band, one value per ONSET_HOP samples. */
  envelope: Float32Array;
  body: Float32Array;
  /** Its low band (kick drums, bass notes), the same frames. */
  low?: Float32Array;
  /** The beat model's activation (beat-model.ts), the same frames; null or absent: the onsets alone. */
  activation?: Float32Array | null;
  bpm: number | null;
  /** 10-cent chroma histograms of the frames that held peaks, at their stream positions (null elsewhere). */
  chromaFrames: (Float64Array | null)[];
  bassFrames: (Float64Array | null)[];
  /** The key's tuning estimate, semitones. */
  tuning: number;
  seconds: number;
  beatOptions?: BeatOptions & {
    bodyWeight?: number;
    lowWeight?: number;
    activationWeight?: number;
    onsetWeight?: number;
  };
  downbeatOptions?: DownbeatOptions;
  chordOptions?: ChordOptions;
}

/** Weight of the body band's novelty beside the whole band's in the beat tracker's score. */
const BODY_WEIGHT = 1;
/**
 * Weight of the low band's novelty (kick drums and bass notes, linear magnitudes: onset-envelope.ts)
 * in the score of the second pass, when the first chain's off-beats hold more of the low band's
 * accents than its beats (OFFBEAT_LOW_ACCENT): the phase cue where off-beat comping carries as many
 * onsets as the beats. Chosen on the development sets (dev, rubato-dev, mma-dev, synth; 2 and 3
 * measured alike, 1 less; docs/analysis.md). Always in the score, it bent the beats of syncopated
 * kicks (boom-bap) towards them; only where the phase is in doubt it moves none.
 */
const LOW_WEIGHT = 2;
/** Weight of the beat model's activation (RMS-normalised) in the beat tracker's score. */
const ACTIVATION_WEIGHT = 1;
/**
 * Weight of the onset novelties (whole and body band) beside the activation, when there is one:
 * none (0.3 read rubato-dev better, 0.660 against 0.628, and dev worse, 0.798 against 0.810).
 */
const ONSET_WEIGHT = 0;
/**
 * The DP's tightness on the activation (beats.ts; 100 on the onsets): the activation's peaks are
 * sharp and few, so a looser hold on the period follows rubato (rubato-dev 0.628 at 100, 0.658 at
 * 70, 0.688 at 30) where the synthetic grooves still hold (0.999 at 100, 0.997 at 70, 0.992 at 30).
 */
const ACTIVATION_TIGHTNESS = 70;

/** The second pass's chain replaces the first only when it shares fewer of its beats than this. */
const KEEP_FIRST = 0.5;
/** The second pass runs when the low band's mean novelty half-way between beats exceeds this times that at the beats. */
const OFFBEAT_LOW_ACCENT = 1;

/**
 * An onset frame's flux compares the window starting at frame × hop with the one before it: an
 * onset shows when it enters the window's loud middle, about half a window after the window's
 * start (checked on click tracks: test/analysis-beats.test.ts).
 */
function onsetFrameSeconds(frame: number, sampleRate: number): number {
  return (frame * ONSET_HOP + ONSET_FRAME / 2) / sampleRate;
}

/** Centre of chroma frame i. */
function chromaFrameSeconds(i: number, sampleRate: number): number {
  return (i * CHROMA_HOP + CHROMA_FRAME / 2) / sampleRate;
}

export function readBeatsAndChords(f: RhythmFeatures): BeatsAndChords {
  // Every frame of the input, silent ones (which held no peak) and those after the last sound too.
  const frameCount = Math.max(
    f.chromaFrames.length,
    Math.floor((f.seconds * f.sampleRate - CHROMA_FRAME) / CHROMA_HOP) + 1,
  );
  const fold = (frames: (Float64Array | null)[]) =>
    Array.from({ length: frameCount }, (_, i) => {
      const h = frames[i];
      return h ? normalise(foldChroma(h, f.tuning)) : null;
    });
  const chroma = fold(f.chromaFrames);
  const bass = fold(f.bassFrames);
  const zero = new Float64Array(12);
  const segments = recogniseChords(
    chroma.map((c) => c ?? zero),
    bass.map((b) => b ?? zero),
    f.chordOptions,
  );
  const hop = CHROMA_HOP / f.sampleRate;
  const chords = segments.map((s, i) => ({
    start: round(i === 0 ? 0 : chromaFrameSeconds(s.start, f.sampleRate) - hop / 2),
    end: round(i === segments.length - 1 ? f.seconds : chromaFrameSeconds(s.end - 1, f.sampleRate) + hop / 2),
    chord: s.chord,
    confidence: round(s.confidence),
  }));

  const none = { beats: [], downbeats: [], beatsPerBar: null, beatConfidence: null, chords };
  const novelty = f.bpm ? preprocess(f.envelope, f.sampleRate / ONSET_HOP) : null;
  if (!novelty || !f.bpm) return none;
  const frameRate = f.sampleRate / ONSET_HOP;
  const bodyNovelty = preprocess(f.body, frameRate) ?? new Float32Array(f.body.length);
  // Kicks and bass notes mark beats more than hi-hats and melody do: the body band adds its weight,
  // so a syncopated melody does not pull the beats onto the off-beats.
  const bodyWeight = f.beatOptions?.bodyWeight ?? BODY_WEIGHT;
  const lowWeight = f.beatOptions?.lowWeight ?? LOW_WEIGHT;
  const lowNovelty = (lowWeight > 0 && f.low ? preprocess(f.low, frameRate) : null) ?? new Float32Array(0);
  const onsetWeight = f.activation ? (f.beatOptions?.onsetWeight ?? ONSET_WEIGHT) : 1;
  const activationWeight = f.beatOptions?.activationWeight ?? ACTIVATION_WEIGHT;
  const act = f.activation ? normaliseRms(f.activation) : null;
  const plain = novelty.map(
    (v, i) => onsetWeight * (v + bodyWeight * (bodyNovelty[i] ?? 0)) + (act ? activationWeight * (act[i] ?? 0) : 0),
  );
  // The local tempo reads the onsets (the activation's peaks, sharp and sparse, misled it under rubato).
  const onsets = act ? novelty.map((v, i) => v + bodyWeight * (bodyNovelty[i] ?? 0)) : plain;
  const beatOptions = act ? { tightness: ACTIVATION_TIGHTNESS, ...f.beatOptions } : f.beatOptions;
  let track = trackBeats(plain, frameRate, f.bpm, beatOptions, onsets);
  // The phase check: where the low band's accents (kicks, bass notes) fall more between the beats
  // than on them, the chain sits on the off-beats; it is tracked again with the low band in the score.
  if (track && lowNovelty.length > 0 && offbeatAccent(track.frames, lowNovelty) > OFFBEAT_LOW_ACCENT) {
    const withLow = plain.map((v, i) => v + lowWeight * (lowNovelty[i] ?? 0));
    const second = trackBeats(withLow, frameRate, f.bpm, beatOptions, onsets);
    // It stands only as a new phase: where it keeps most of the first chain's beats, its other beats
    // are bends towards syncopated bass notes and kicks (a funk bass line), not a correction.
    if (second && shared(second.frames, track.frames, (15 * frameRate) / f.bpm) < KEEP_FIRST) track = second;
  }
  if (!track) return none;
  const frames = act ? snapToOnsets(track.frames, onsets, frameRate, f.bpm) : track.frames;
  const beats = frames.map((b) => onsetFrameSeconds(b, f.sampleRate));
  const features = {
    chordChange: changes(beatSync(beats, chroma, f.sampleRate)),
    bassChange: changes(beatSync(beats, bass, f.sampleRate)),
    body: Float64Array.from(track.frames, (b) => {
      const i = Math.round(b);
      return Math.max(bodyNovelty[i - 1] ?? 0, bodyNovelty[i] ?? 0, bodyNovelty[i + 1] ?? 0);
    }),
  };
  const bars = findDownbeats(features, f.downbeatOptions);
  const rounded = beats.map(round);
  return {
    beats: rounded,
    downbeats: bars ? bars.indices.map((i) => rounded[i]!) : [],
    beatsPerBar: bars?.beatsPerBar ?? null,
    beatConfidence: round(track.confidence),
    chords,
  };
}

/** x over its RMS (the onset novelties are unit RMS too). */
function normaliseRms(x: Float32Array): Float32Array {
  let sq = 0;
  for (const v of x) sq += v * v;
  const rms = Math.sqrt(sq / Math.max(1, x.length)) || 1;
  return x.map((v) => v / rms);
}

/** Share of `a`'s beats within `tolerance` frames of one of `b`'s. */
function shared(a: number[], b: number[], tolerance: number): number {
  let hits = 0;
  let j = 0;
  for (const x of a) {
    while (j + 1 < b.length && b[j + 1]! <= x) j++;
    const near = Math.min(Math.abs(x - b[j]!), Math.abs((b[j + 1] ?? Number.POSITIVE_INFINITY) - x));
    if (near <= tolerance) hits++;
  }
  return a.length > 0 ? hits / a.length : 0;
}

/** Mean low-band novelty half-way between beats over that at the beats (max over ±1 frame). */
function offbeatAccent(frames: number[], low: Float32Array): number {
  const at = (x: number) => {
    const i = Math.round(x);
    return Math.max(low[i - 1] ?? 0, low[i] ?? 0, low[i + 1] ?? 0);
  };
  let on = 0;
  let off = 0;
  for (let i = 0; i + 1 < frames.length; i++) {
    on += at(frames[i]!);
    off += at((frames[i]! + frames[i + 1]!) / 2);
  }
  return on > 0 ? off / on : 0;
}

/** Mean chroma over each beat's span [beat, next beat), from the frames whose centre falls in it. */
function beatSync(beats: number[], frames: (Float64Array | null)[], sampleRate: number): Float64Array[] {
  const out = beats.map(() => new Float64Array(12));
  let k = 0;
  for (let i = 0; i < frames.length; i++) {
    const frame = frames[i];
    if (!frame) continue;
    const t = chromaFrameSeconds(i, sampleRate);
    while (k + 1 < beats.length && beats[k + 1]! <= t) k++;
    if (t < beats[0]!) continue;
    const acc = out[k]!;
    for (let j = 0; j < 12; j++) acc[j]! += frame[j]!;
  }
  return out;
}

/** 1 - cosine similarity of each beat's chroma with the previous beat's (0 for the first). */
function changes(sync: Float64Array[]): Float64Array {
  return Float64Array.from(sync, (c, k) => {
    const p = sync[k - 1];
    if (!p) return 0;
    let dot = 0;
    for (let j = 0; j < 12; j++) dot += c[j]! * p[j]!;
    const norm = Math.hypot(...c) * Math.hypot(...p);
    return norm > 0 ? 1 - dot / norm : 0;
  });
}

function normalise(c: Float64Array): Float64Array {
  const sum = c.reduce((a, b) => a + b, 0);
  return sum > 0 ? c.map((v) => v / sum) : c;
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
