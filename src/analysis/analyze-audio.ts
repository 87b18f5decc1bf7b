import { decodeAudio } from '../audio/decode.ts';
import type { FfmpegTools } from '../audio/tools.ts';
import { CHROMA_HOP, ChromaAccumulator, estimateTuning, FINE_BINS, foldChroma } from './chroma.ts';
import { chromaContrast, estimateKey, keyConfidenceOf, type KeyEstimate } from './key.ts';
import { camelot } from './key-names.ts';
import { mixEnvelopes, OnsetEnvelope } from './onset-envelope.ts';
import { estimateTempo } from './tempo.ts';

/** Analysis rate: 22.05 kHz keeps everything up to 11 kHz, plenty for onsets and pitch. */
export const ANALYSIS_SAMPLE_RATE = 22_050;
/** Longer inputs are analysed on their first ten minutes: tempo and key are global properties. */
export const DEFAULT_MAX_SECONDS = 600;
/**
 * Less than this much non-silent audio leaves the key unknown. A listener names the key of two
 * seconds of a song; 1.5 s still gives the chroma 7 half-overlapping 370 ms frames.
 */
const MIN_KEY_SECONDS = 1.5;
/**
 * The tonality gate. Tonality is the larger of two coefficients of variation of the 12-bin chroma
 * of the peaks that stand out of their neighbourhood (chroma.ts; scale-invariant, so loudness does
 * not matter): the whole input's, and the mean of each frame's less FRAME_CONTRAST_OFFSET. Set from
 * atonal input only: white, brown and pink noise measure up to 0.31, a real noise recording 0.45,
 * the musdb drum stem 0.40-0.46 (2-6 s); the gate sits above them. Every labelled excerpt of the
 * real-music set passes, 2 s ones included (lowest 0.53), and 35 of 54 still pass with a drum
 * stem mixed in 6 dB above the music (the gate of all peaks, before: 27). Below MIN_TONALITY the
 * key is null. Measurements in docs/analysis.md.
 */
export const MIN_TONALITY = 0.5;
export const FRAME_CONTRAST_OFFSET = 0.05;

export interface AnalyzeInput {
  /** The mixture; used for whatever no stem covers. */
  mixPath: string;
  /** Separated drums: when present the onset envelope comes from the stems, not the mix. */
  drumsPath?: string;
  /** Separated bass: adds its onsets (half weight) to the drums' and its pitches to the chroma. */
  bassPath?: string;
  /** Every stem but drums (vocals, other, ...): when present the chroma comes from these. */
  harmonicPaths?: string[];
  tools?: FfmpegTools;
  maxSeconds?: number;
  signal?: AbortSignal;
}

/** What a job reports as `audioMetadata`. */
export interface AudioAnalysis {
  /** Beats per minute, one decimal; null when the audio has no steady pulse. */
  bpm: number | null;
  /** Key as "Eb major" / "C# minor" (see key-names.ts); null when there is no tonal content. */
  key: string | null;
  /** 0-1: how clearly the audio pulses at `bpm` (see tempo.ts); null with `bpm`. */
  tempoConfidence: number | null;
  /** 0-1: how well the chroma fits `key` and how tonal it is (see key.ts); null with `key`. */
  keyConfidence: number | null;
}

export interface DetailedAnalysis extends AudioAnalysis {
  camelot: string | null;
  keyScore: number | null;
  keyMargin: number | null;
  /** Coefficient of variation of the whole input's 12-bin chroma (tonality gate, see MIN_TONALITY). */
  chromaContrast: number | null;
  /** Mean over frames of each frame's chroma coefficient of variation (tonality gate). */
  frameContrast: number | null;
  /** Deviation of the tuning from A = 440 Hz, in cents. */
  tuningCents: number | null;
  /** The tuned 12-bin chroma (C first, sums to 1) the key was read from. */
  chroma: number[] | null;
  /** How noise-like the onsets are (drums: high); see OnsetEnvelope.onsetFlatness. */
  onsetFlatness: number;
  tempoSource: 'mix' | 'stems';
  keySource: 'mix' | 'stems';
  seconds: number;
}

export class AnalysisError extends Error {}

interface FileJob {
  path: string;
  onsetWeight: number;
  chroma: boolean;
}

/** Plans which file feeds which feature: stems where they exist, the mix for the rest. */
function plan(input: AnalyzeInput): { jobs: FileJob[]; tempoSource: 'mix' | 'stems'; keySource: 'mix' | 'stems' } {
  const jobs = new Map<string, FileJob>();
  const job = (path: string) => {
    let j = jobs.get(path);
    if (!j) {
      j = { path, onsetWeight: 0, chroma: false };
      jobs.set(path, j);
    }
    return j;
  };
  const tempoSource = input.drumsPath ? 'stems' : 'mix';
  if (input.drumsPath) {
    job(input.drumsPath).onsetWeight = 1;
    if (input.bassPath) job(input.bassPath).onsetWeight = 0.5;
  } else {
    job(input.mixPath).onsetWeight = 1;
  }
  const harmonic = [...(input.harmonicPaths ?? [])];
  if (input.bassPath && harmonic.length && !harmonic.includes(input.bassPath)) harmonic.push(input.bassPath);
  const keySource = harmonic.length ? 'stems' : 'mix';
  for (const p of harmonic.length ? harmonic : [input.mixPath]) job(p).chroma = true;
  return { jobs: [...jobs.values()], tempoSource, keySource };
}

/**
 * Detects tempo and key of a file, preferring separated stems when they are given. Decodes through
 * ffmpeg to 22.05 kHz mono and streams, so memory stays flat. CPU-bound for about a second per
 * four minutes of audio: from a server process call `analyzeAudioInThread` instead.
 * Throws an AnalysisError when a file cannot be decoded.
 */
export async function analyzeAudio(input: AnalyzeInput): Promise<AudioAnalysis> {
  const { bpm, key, tempoConfidence, keyConfidence } = await analyzeAudioDetailed(input);
  return { bpm, key, tempoConfidence, keyConfidence };
}

export async function analyzeAudioDetailed(input: AnalyzeInput): Promise<DetailedAnalysis> {
  const { jobs, tempoSource, keySource } = plan(input);
  const envelopes: { envelope: Float32Array; weight: number }[] = [];
  const bodies: { envelope: Float32Array; weight: number }[] = [];
  const fine = new Float64Array(FINE_BINS);
  let chromaFrames = 0;
  let frameContrastSum = 0;
  let seconds = 0;
  let frameRate = ANALYSIS_SAMPLE_RATE / 512;
  let onsetFlatness = 0;

  for (const job of jobs) {
    const onset = job.onsetWeight > 0 ? new OnsetEnvelope(ANALYSIS_SAMPLE_RATE) : null;
    const chroma = job.chroma ? new ChromaAccumulator(ANALYSIS_SAMPLE_RATE) : null;
    let frames = 0;
    try {
      for await (const chunk of decodeAudio(job.path, {
        sampleRate: ANALYSIS_SAMPLE_RATE,
        channels: 1,
        chunkFrames: 16_384,
        durationSeconds: input.maxSeconds ?? DEFAULT_MAX_SECONDS,
        tools: input.tools,
        signal: input.signal,
      })) {
        onset?.push(chunk);
        chroma?.push(chunk);
        frames += chunk.length;
      }
    } catch (err) {
      throw new AnalysisError(`cannot analyse ${job.path}: ${(err as Error).message}`, { cause: err });
    }
    seconds = Math.max(seconds, frames / ANALYSIS_SAMPLE_RATE);
    if (onset) {
      envelopes.push({ envelope: onset.envelope(), weight: job.onsetWeight });
      bodies.push({ envelope: onset.bodyEnvelope(), weight: job.onsetWeight });
      onsetFlatness = Math.max(onsetFlatness, onset.onsetFlatness());
      frameRate = onset.frameRate;
    }
    if (chroma) {
      const h = chroma.fineHistogram();
      for (let i = 0; i < FINE_BINS; i++) fine[i]! += h[i]!;
      chromaFrames = Math.max(chromaFrames, chroma.frameCount);
      frameContrastSum += chroma.contrastTotal / Math.max(1, chroma.frameCount);
    }
  }

  const tempo = estimateTempo(
    { envelope: mixEnvelopes(envelopes), body: mixEnvelopes(bodies), onsetFlatness },
    frameRate,
  );
  let key: KeyEstimate | null = null;
  let keyConfidence: number | null = null;
  let tuning: number | null = null;
  let chroma: number[] | null = null;
  let contrast: number | null = null;
  let perFrame: number | null = null;
  if (chromaFrames * CHROMA_HOP >= MIN_KEY_SECONDS * ANALYSIS_SAMPLE_RATE) {
    tuning = estimateTuning(fine);
    const folded = foldChroma(fine, tuning);
    const sum = folded.reduce((a, b) => a + b, 0) || 1;
    chroma = Array.from(folded, (v) => round(v / sum, 4));
    contrast = chromaContrast(folded);
    perFrame = frameContrastSum / jobs.filter((j) => j.chroma).length;
    const tonality = Math.max(contrast, perFrame - FRAME_CONTRAST_OFFSET);
    if (tonality >= MIN_TONALITY) {
      key = estimateKey(folded);
      if (key) keyConfidence = keyConfidenceOf(key, tonality, MIN_TONALITY);
    }
  }
  return {
    bpm: tempo?.bpm ?? null,
    key: key?.name ?? null,
    tempoConfidence: tempo ? round(tempo.confidence, 3) : null,
    keyConfidence: keyConfidence === null ? null : round(keyConfidence, 3),
    camelot: key ? camelot(key) : null,
    chromaContrast: contrast === null ? null : round(contrast, 3),
    frameContrast: perFrame === null ? null : round(perFrame, 3),
    keyScore: key ? round(key.score, 3) : null,
    keyMargin: key ? round(key.margin, 3) : null,
    tuningCents: tuning === null ? null : Math.round(tuning * 100),
    chroma,
    tempoSource,
    keySource,
    seconds: round(seconds, 2),
    onsetFlatness: round(onsetFlatness, 3),
  };
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Number.isFinite(x) ? Math.round(x * f) / f : x;
}
