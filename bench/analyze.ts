/**
 * Tempo and key accuracy of src/analysis against labelled audio, next to the npm `music-tempo`
 * (BeatRoot, Dixon 2001) on the same clips, plus the analyser's speed on a 4-minute song.
 *   node bin/run-ts.mjs bench/analyze.ts [--clips DIR] [--skip-speed]
 * Clips are synthesised into DIR (default: a temp dir) and reused when already there.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { analyzeAudio, analyzeAudioDetailed } from '../src/analysis/analyze-audio.ts';
import { analyzeAudioInThread } from '../src/analysis/analyze-off-thread.ts';
import { estimateKey } from '../src/analysis/key.ts';
import { EDMA, KRUMHANSL, TEMPERLEY, type KeyProfile } from '../src/analysis/key-profiles.ts';
import { decodeToPlanar } from '../src/audio/decode.ts';
import { sharedPath } from '../support/shared.ts';
import { KEY_CLIPS, renderGroove, renderKeyClip, TEMPO_CLIPS, writeWav } from './fixtures/synth-clips.ts';
import { mirexKeyScore, tempoHit, tempoHitOctave } from './analyze-metrics.ts';

const require = createRequire(import.meta.url);
const MusicTempo = require('music-tempo') as new (data: Float32Array) => { tempo: number };

const { values } = parseArgs({ options: { clips: { type: 'string' }, 'skip-speed': { type: 'boolean' } } });
const dir = values.clips ?? mkdtempSync(join(tmpdir(), 'stemforge-analyze-'));
mkdirSync(dir, { recursive: true });

async function clip(name: string, render: () => Float32Array): Promise<string> {
  const path = join(dir, `${name}.wav`);
  return existsSync(path) ? path : writeWav(dir, name, render());
}

async function musicTempo(path: string): Promise<number | null> {
  try {
    const { channels } = await decodeToPlanar(path, { sampleRate: 44_100, channels: 1 });
    return Math.round(new MusicTempo(channels[0]).tempo * 10) / 10;
  } catch {
    return null; // it throws on clips where it finds no beats
  }
}

const tempoSet: { name: string; path: string; bpm: number }[] = [];
for (const c of TEMPO_CLIPS)
  tempoSet.push({ name: c.name, path: await clip(c.name, () => renderGroove(c, 30)), bpm: c.bpm });
tempoSet.push({ name: '126bpm.mp3', path: sharedPath('audio', 'tempo-key', '126bpm.mp3'), bpm: 126 });
tempoSet.push({
  name: 'sorohanro trumpet',
  path: sharedPath('audio', 'tempo-key', 'sorohanro_-_solo-trumpet-06.hq.ogg'),
  bpm: 90,
});

console.log('\n== tempo (within 4 %; "x2" also accepts double/half/triple/third) ==');
console.log(`${'clip'.padEnd(24)} ${'label'.padStart(6)} ${'ours'.padStart(7)} ${'music-tempo'.padStart(12)}`);
const tally = { ours: 0, oursOct: 0, mt: 0, mtOct: 0 };
for (const t of tempoSet) {
  const ours = (await analyzeAudio({ mixPath: t.path })).bpm;
  const mt = await musicTempo(t.path);
  tally.ours += +tempoHit(ours, t.bpm);
  tally.oursOct += +tempoHitOctave(ours, t.bpm);
  tally.mt += +tempoHit(mt, t.bpm);
  tally.mtOct += +tempoHitOctave(mt, t.bpm);
  const mark = (v: number | null) => `${v ?? '-'}${tempoHit(v, t.bpm) ? ' ' : tempoHitOctave(v, t.bpm) ? '²' : '✗'}`;
  console.log(`${t.name.padEnd(24)} ${String(t.bpm).padStart(6)} ${mark(ours).padStart(7)} ${mark(mt).padStart(12)}`);
}
const n = tempoSet.length;
const pct = (k: number) => `${((100 * k) / n).toFixed(1)} % (${k}/${n})`;
console.log(`stemforge   : ${pct(tally.ours)} within 4 %, ${pct(tally.oursOct)} allowing double/half`);
console.log(`music-tempo : ${pct(tally.mt)} within 4 %, ${pct(tally.mtOct)} allowing double/half`);

const keySet: { name: string; path: string; key: string }[] = [];
for (const c of KEY_CLIPS)
  keySet.push({ name: c.name, path: await clip(c.name, () => renderKeyClip(c, 16)), key: c.key });
keySet.push({
  name: 'EDM_Eb_major_2min.mp3',
  path: sharedPath('audio', 'tempo-key', 'EDM_Eb_major_2min.mp3'),
  key: 'Eb major',
});
keySet.push({
  name: 'sorohanro trumpet',
  path: sharedPath('audio', 'tempo-key', 'sorohanro_-_solo-trumpet-06.hq.ogg'),
  key: 'F major',
});

const profileSets: [string, KeyProfile[]][] = [
  ['krumhansl', [KRUMHANSL]],
  ['temperley', [TEMPERLEY]],
  ['edma', [EDMA]],
  ['all three (shipped)', [KRUMHANSL, TEMPERLEY, EDMA]],
];
console.log('\n== key (MIREX weighted score: 1 same, .5 fifth, .3 relative, .2 parallel) ==');
const scores = profileSets.map(() => 0);
for (const k of keySet) {
  const r = await analyzeAudioDetailed({ mixPath: k.path });
  const per = profileSets.map(([, ps], i) => {
    const est = r.chroma ? (estimateKey(r.chroma, ps)?.name ?? null) : null;
    const s = mirexKeyScore(est, k.key);
    scores[i] += s;
    return s;
  });
  if (r.key !== k.key)
    console.log(`${k.name.padEnd(24)} ${k.key.padEnd(9)} -> ${r.key} (${mirexKeyScore(r.key, k.key)})`);
  void per;
}
for (const [i, [name]] of profileSets.entries())
  console.log(`${name.padEnd(22)} ${(scores[i] / keySet.length).toFixed(3)} over ${keySet.length} clips`);
console.log('(music-tempo has no key detector; no npm key detector without GPL code was found to compare.)');

if (!values['skip-speed']) {
  console.log('\n== speed: a 4-minute song ==');
  const song = join(dir, 'four-minutes.mp3');
  if (!existsSync(song)) {
    // The shared music is shorter than 4 minutes: loop the longest track to 240 s.
    execFileSync('ffmpeg', [
      '-v',
      'error',
      '-y',
      '-stream_loop',
      '2',
      '-i',
      sharedPath('audio', 'music', 'Karissa_Hobbs_-_Lets_Go_Fishin.hq.ogg'),
      '-t',
      '240',
      '-c:a',
      'libmp3lame',
      '-b:a',
      '192k',
      song,
    ]);
  }
  const time = async (f: () => Promise<unknown>) => {
    const runs: number[] = [];
    for (let i = 0; i < 3; i++) {
      const t = performance.now();
      await f();
      runs.push(performance.now() - t);
    }
    return (runs.sort((a, b) => a - b)[1] / 1000).toFixed(2);
  };
  console.log(`analyzeAudio (in process), median of 3: ${await time(() => analyzeAudio({ mixPath: song }))} s`);
  console.log(
    `analyzeAudioInThread (worker thread), median of 3: ${await time(() => analyzeAudioInThread({ mixPath: song }))} s`,
  );
  const mtData = (await decodeToPlanar(song, { sampleRate: 44_100, channels: 1 })).channels[0];
  const t = performance.now();
  new MusicTempo(mtData);
  console.log(
    `music-tempo on the decoded samples (decode not counted): ${((performance.now() - t) / 1000).toFixed(2)} s`,
  );
}
if (!values.clips) rmSync(dir, { recursive: true, force: true });
