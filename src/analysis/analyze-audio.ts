import { decodeAudio } from '../audio/decode.ts';
import type { FfmpegTools } from '../audio/tools.ts';
import { beatActivation } from './beat-model.ts';
import { type BeatsAndChords, type RhythmFeatures, readBeatsAndChords } from './beats-and-chords.ts';
import { CHROMA_HOP, ChromaAccumulator, estimateTuning, FINE_BINS } from './chroma.ts';
import { camelot } from './key-names.ts';
import { type KeyReading, readKey } from './key-reading.ts';
import { KEY_SEMITONES, KeySpectrogram } from './key-spectrogram.ts';
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
/** The tonality gate (see key-reading.ts): below it the key is null. */
export { FRAME_CONTRAST_OFFSET, MIN_TONALITY } from './key-reading.ts';

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
  /** A candidate key model instead of the shipped one (benchmarks). */
  keyModelPath?: string;
  /** Another beat model (benchmarks of candidates); `null`: no model, the onset novelty alone. */
  beatModelPath?: string | null;
  /** Beat, downbeat and chord settings other than the shipped ones (benchmarks). */
  rhythmOptions?: Pick<RhythmFeatures, 'beatOptions' | 'downbeatOptions' | 'chordOptions'>;
}

/** What a job reports as `audioMetadata`. */
export interface AudioAnalysis {
  /** Beats per minute, one decimal; null when the audio has no steady pulse. */
  bpm: number | null;
  /** Key as "Eb major" / "C# minor" (see key-names.ts); null when there is no tonal content. */
  key: string | null;
  /** 0-1: how clearly the audio pulses at `bpm` (see tempo.ts); null with `bpm`. */
  tempoConfidence: number | null;
  /**
   * 0-1: the learned model's probability for `key` (key-reading.ts): near 1 for one clear key, 0.2-0.4
   * where a relative, parallel or fifth-related key is nearly as likely; null with `key`.
   */
  keyConfidence: number | null;
}

export interface DetailedAnalysis extends AudioAnalysis, BeatsAndChords {
  camelot: string | null;
  keyScore: number | null;
  keyMargin: number | null;
  /** Coefficient of variation of the whole input's 12-bin chroma (tonality gate, see MIN_TONALITY). */
  chromaContrast: number | null;
  /** Mean over frames of each frame's chroma coefficient of variation (tonality gate). */
  frameContrast: number | null;
  /** Deviation of the tuning from A = 440 Hz, in cents. */
  tuningCents: number | null;
  /** The tuned 12-bin chroma (C first, sums to 1) the profile method reads. */
  chroma: number[] | null;
  /** Which method named `key`: the profile method, the learned model, or both agreeing (key-reading.ts). */
  keyMethod: KeyReading['method'];
  /** The profile method's key (Krumhansl-Schmuckler on the chroma), reported or not. */
  profileKey: string | null;
  /** The learned model's key and probability, whichever was reported. */
  modelKey: string | null;
  modelKeyProbability: number | null;
  /** The input passed the tonality gate but was judged to have no tonal centre (key-reading.ts). */
  keyNoCentre: boolean;
  /** How much of the pitch energy sits on one semitone grid (chroma.ts pitchGrid): low for speech. */
  pitchGrid: number | null;
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
  const lows: { envelope: Float32Array; weight: number }[] = [];
  const modelBands: { frames: Float32Array; bands: number; weight: number }[] = [];
  const fine = new Float64Array(FINE_BINS);
  const spectrograms: KeySpectrogram[] = [];
  const pitchFrames: (Float64Array | null)[] = [];
  const bassFrames: (Float64Array | null)[] = [];
  let chromaFrames = 0;
  let frameContrastSum = 0;
  let seconds = 0;
  let frameRate = ANALYSIS_SAMPLE_RATE / 512;
  let onsetFlatness = 0;

  for (const job of jobs) {
    const onset = job.onsetWeight > 0 ? new OnsetEnvelope(ANALYSIS_SAMPLE_RATE) : null;
    // Every frame is kept (and its bass peaks) for the chords and downbeats; the key reads the sum.
    const chroma = job.chroma ? new ChromaAccumulator(ANALYSIS_SAMPLE_RATE, { frames: true, bass: true }) : null;
    const spectrogram = job.chroma ? new KeySpectrogram(ANALYSIS_SAMPLE_RATE) : null;
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
        spectrogram?.push(chunk);
        frames += chunk.length;
      }
    } catch (err) {
      throw new AnalysisError(`cannot analyse ${job.path}: ${(err as Error).message}`, { cause: err });
    }
    seconds = Math.max(seconds, frames / ANALYSIS_SAMPLE_RATE);
    if (onset) {
      envelopes.push({ envelope: onset.envelope(), weight: job.onsetWeight });
      bodies.push({ envelope: onset.bodyEnvelope(), weight: job.onsetWeight });
      lows.push({ envelope: onset.lowEnvelope(), weight: job.onsetWeight });
      modelBands.push({ frames: onset.modelBandFrames(), bands: onset.modelBandCount, weight: job.onsetWeight });
      onsetFlatness = Math.max(onsetFlatness, onset.onsetFlatness());
      frameRate = onset.frameRate;
    }
    if (chroma) {
      const h = chroma.fineHistogram();
      for (let i = 0; i < FINE_BINS; i++) fine[i]! += h[i]!;
      chromaFrames = Math.max(chromaFrames, chroma.frameCount);
      frameContrastSum += chroma.contrastTotal / Math.max(1, chroma.frameCount);
      addFrames(pitchFrames, chroma.frameIndices(), chroma.frameHistograms());
      addFrames(bassFrames, chroma.frameIndices(), chroma.bassFrameHistograms());
    }
    if (spectrogram) spectrograms.push(spectrogram);
  }

  const tempo = estimateTempo(
    { envelope: mixEnvelopes(envelopes), body: mixEnvelopes(bodies), onsetFlatness },
    frameRate,
  );
  let reading: KeyReading | null = null;
  if (chromaFrames * CHROMA_HOP >= MIN_KEY_SECONDS * ANALYSIS_SAMPLE_RATE) {
    reading = await readKey({
      fine,
      frameContrast: frameContrastSum / spectrograms.length,
      spectrogram: (tuning) => sumSpectrograms(spectrograms, tuning),
      modelPath: input.keyModelPath,
      seconds: (chromaFrames * CHROMA_HOP) / ANALYSIS_SAMPLE_RATE,
    });
  }
  const bands = sumBands(modelBands);
  const activation =
    tempo && bands && input.beatModelPath !== null
      ? await beatActivation(bands.frames, bands.bands, input.beatModelPath ?? undefined)
      : null;
  const rhythm = readBeatsAndChords({
    sampleRate: ANALYSIS_SAMPLE_RATE,
    envelope: mixEnvelopes(envelopes),
    body: mixEnvelopes(bodies),
    low: mixEnvelopes(lows),
    activation,
    bpm: tempo?.bpm ?? null,
    chromaFrames: pitchFrames,
    bassFrames,
    tuning: reading?.tuning ?? estimateTuning(fine),
    seconds,
    ...input.rhythmOptions,
  });
  const key = reading?.key ?? null;
  const chroma = reading ? normalised(reading.chroma) : null;
  return {
    bpm: tempo?.bpm ?? null,
    key: key?.name ?? null,
    tempoConfidence: tempo ? round(tempo.confidence, 3) : null,
    keyConfidence: reading?.confidence == null ? null : round(reading.confidence, 3),
    camelot: key ? camelot(key) : null,
    chromaContrast: reading ? round(reading.contrast, 3) : null,
    frameContrast: reading ? round(frameContrastSum / spectrograms.length, 3) : null,
    keyScore: reading?.profile ? round(reading.profile.score, 3) : null,
    keyMargin: reading?.profile ? round(reading.profile.margin, 3) : null,
    tuningCents: reading ? Math.round(reading.tuning * 100) : null,
    chroma,
    keyMethod: reading?.method ?? null,
    profileKey: reading?.profile?.name ?? null,
    modelKey: reading?.model?.name ?? null,
    modelKeyProbability: reading?.model ? round(reading.model.probability, 3) : null,
    keyNoCentre: reading?.noCentre ?? false,
    pitchGrid: reading ? round(reading.grid, 3) : null,
    tempoSource,
    keySource,
    seconds: round(seconds, 2),
    onsetFlatness: round(onsetFlatness, 3),
    ...rhythm,
  };
}

/** Adds each stem's frame histograms into `into` at their stream positions (stems summed). */
function addFrames(into: (Float64Array | null)[], indices: number[], frames: Float64Array[]): void {
  indices.forEach((index, i) => {
    const frame = frames[i];
    if (!frame) return;
    while (into.length <= index) into.push(null);
    const acc = into[index];
    if (acc) for (let j = 0; j < FINE_BINS; j++) acc[j]! += frame[j]!;
    else into[index] = frame.slice();
  });
}

/** The onset files' beat-model band energies, weighted and summed frame by frame (the shortest's length). */
function sumBands(
  parts: { frames: Float32Array; bands: number; weight: number }[],
): { frames: Float32Array; bands: number } | null {
  const first = parts[0];
  if (!first) return null;
  const length = Math.min(...parts.map((p) => p.frames.length));
  const frames = new Float32Array(length);
  for (const p of parts) for (let i = 0; i < length; i++) frames[i]! += p.weight * p.frames[i]!;
  return { frames, bands: first.bands };
}

/** Stems' semitone spectrograms summed frame by frame (the shortest stem's length). */
function sumSpectrograms(parts: KeySpectrogram[], tuning: number): Float32Array {
  const [first, ...rest] = parts.map((p) => p.semitones(tuning));
  if (!first) return new Float32Array(0);
  const length = Math.min(first.length, ...rest.map((r) => r.length));
  const out = first.slice(0, length - (length % KEY_SEMITONES));
  for (const r of rest) for (let i = 0; i < out.length; i++) out[i]! += r[i]!;
  return out;
}

function normalised(chroma: Float64Array): number[] {
  const sum = chroma.reduce((a, b) => a + b, 0) || 1;
  return Array.from(chroma, (v) => round(v / sum, 4));
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Number.isFinite(x) ? Math.round(x * f) / f : x;
}
