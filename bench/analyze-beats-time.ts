/**
 * What beats, downbeats and chords cost on a 4-minute song (bench only):
 *   node bin/run-ts.mjs bench/analyze-beats-time.ts [--runs 5]
 * Times, alternating, the whole analysis (`analyzeAudioDetailed`: decoding, tempo, key, beats,
 * downbeats, chords) and the beats-downbeats-chords step alone (the beat model's activation and
 * `readBeatsAndChords`, on the features the analysis streams); medians, wall and this process's CPU, and the CPU's name.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ANALYSIS_SAMPLE_RATE, analyzeAudioDetailed } from '../src/analysis/analyze-audio.ts';
import { beatActivation } from '../src/analysis/beat-model.ts';
import { readBeatsAndChords } from '../src/analysis/beats-and-chords.ts';
import { ChromaAccumulator, estimateTuning, FINE_BINS } from '../src/analysis/chroma.ts';
import { OnsetEnvelope } from '../src/analysis/onset-envelope.ts';
import { estimateTempo } from '../src/analysis/tempo.ts';
import { decodeAudio } from '../src/audio/decode.ts';
import { median } from '../support/median.ts';
import { sharedPath } from '../support/shared.ts';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' } } });
const runs = Number(values.runs);
const dir = mkdtempSync(join(tmpdir(), 'stemforge-beats-time-'));
const song = join(dir, 'four-minutes.wav');
// The shared music is shorter than 4 minutes: the longest track looped to 240 s (as bench/analyze.ts).
execFileSync('ffmpeg', [
  ...['-v', 'error', '-y', '-stream_loop', '2'],
  ...['-i', sharedPath('audio', 'music', 'Karissa_Hobbs_-_Lets_Go_Fishin.hq.ogg')],
  ...['-t', '240', '-ar', '44100', '-ac', '2', song],
]);

// The features, streamed once as the analysis streams them.
const onset = new OnsetEnvelope(ANALYSIS_SAMPLE_RATE);
const chroma = new ChromaAccumulator(ANALYSIS_SAMPLE_RATE, { frames: true, bass: true });
let samples = 0;
for await (const chunk of decodeAudio(song, { sampleRate: ANALYSIS_SAMPLE_RATE, channels: 1 })) {
  onset.push(chunk);
  chroma.push(chunk);
  samples += chunk.length;
}
const dense = (frames: Float64Array[]) => {
  const out: (Float64Array | null)[] = [];
  chroma.frameIndices().forEach((index, i) => {
    while (out.length < index) out.push(null);
    out[index] = frames[i] ?? new Float64Array(FINE_BINS);
  });
  return out;
};
const envelope = onset.envelope();
const body = onset.bodyEnvelope();
const tempo = estimateTempo({ envelope, body, onsetFlatness: onset.onsetFlatness() }, onset.frameRate);
const features = {
  sampleRate: ANALYSIS_SAMPLE_RATE,
  envelope,
  body,
  bpm: tempo?.bpm ?? null,
  chromaFrames: dense(chroma.frameHistograms()),
  bassFrames: dense(chroma.bassFrameHistograms()),
  tuning: estimateTuning(chroma.fineHistogram()),
  seconds: samples / ANALYSIS_SAMPLE_RATE,
};

const wall = { whole: [] as number[], step: [] as number[] };
const cpu = { whole: [] as number[], step: [] as number[] };
const timed = async (side: 'whole' | 'step', f: () => unknown) => {
  const t = performance.now();
  const c = process.cpuUsage();
  await f();
  wall[side].push((performance.now() - t) / 1000);
  const used = process.cpuUsage(c);
  cpu[side].push((used.user + used.system) / 1e6);
};
let beats = 0;
let chords = 0;
for (let i = 0; i < runs; i++) {
  // alternating sides, so the machine's other load falls on both alike
  await timed('whole', () => analyzeAudioDetailed({ mixPath: song }));
  await timed('step', async () => {
    const activation = await beatActivation(onset.modelBandFrames(), onset.modelBandCount);
    const r = readBeatsAndChords({ ...features, activation });
    beats = r.beats.length;
    chords = r.chords.length;
  });
}
const s = (x: number[]) => `${median(x).toFixed(3)} s`;
console.log(
  `CPU: ${cpus()[0]?.model ?? 'unknown'} (${cpus().length} cores), load average ${(await import('node:os'))
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
console.log(`input: 240 s, 44.1 kHz stereo WAV; ${beats} beats, ${chords} chord segments; medians of ${runs}`);
console.log(`beats (model + DP) + downbeats + chords step alone:  ${s(wall.step)} wall, ${s(cpu.step)} CPU`);
console.log(
  `whole analysis (decode, tempo, key, beats, downbeats, chords): ${s(wall.whole)} wall, ${s(cpu.whole)} CPU of this process (ffmpeg decodes beside it)`,
);
console.log(`step / whole (wall): ${(median(wall.step) / median(wall.whole)).toFixed(3)}`);
rmSync(dir, { recursive: true, force: true });
