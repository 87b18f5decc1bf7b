/**
 * Tempo and key accuracy of src/analysis against labelled audio, next to the npm `music-tempo`
 * (BeatRoot, Dixon 2001) on the same clips, plus the analyser's speed on a 4-minute song.
 *   node bin/run-ts.mjs bench/analyze.ts [--clips DIR] [--set DIR] [--python BIN] [--skip-speed]
 * The old set: clips synthesised into --clips DIR (default: a temp dir, reused when already there)
 * plus ../shared/audio/tempo-key (the set the analyser was tuned on). The new set: real recordings
 * nobody tuned on, built and labelled by `python3 bench/analyze-realset.py DIR` (see that file for
 * how each label is obtained); pass that DIR as --set. Scores come from mir_eval through
 * bench/analyze-score.py when --python (default python3) has it, and from analyze-metrics.ts always.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { analyzeAudio, analyzeAudioDetailed } from '../src/analysis/analyze-audio.ts';
import { analyzeAudioInThread } from '../src/analysis/analyze-off-thread.ts';
import { estimateKey } from '../src/analysis/key.ts';
import { EDMA, KRUMHANSL, TEMPERLEY, type KeyProfile } from '../src/analysis/key-profiles.ts';
import { decodeToPlanar } from '../support/decode-planar.ts';
import { sharedPath } from '../support/shared.ts';
import { KEY_CLIPS, renderGroove, renderKeyClip, TEMPO_CLIPS, writeWav } from '../support/fixtures/synth-clips.ts';
import { mirexKeyScore, tempoHit, tempoHitOctave } from '../support/analyze-metrics.ts';

/**
 * The new set's figures before the key change of issue 16's second round, for comparison: this
 * bench run on the code of commit 5bbfd26 with the same set and labels (mir_eval scores).
 */
const BEFORE = { commit: '5bbfd26', acc1: 0.711, acc2: 0.947, key: 0.574, short: 0.367, shortNulls: 2 };

/** One scored item: what bench/analyze-score.py reads. */
interface Scored {
  name: string;
  tempoRef?: number | null;
  tempoEst?: number | null;
  keyRef?: string | null;
  keyEst?: string | null;
  short?: boolean;
}
const scoredOld: Scored[] = [];
const scoredNew: Scored[] = [];

const require = createRequire(import.meta.url);
const MusicTempo = require('music-tempo') as new (data: Float32Array) => { tempo: number };

const { values } = parseArgs({
  options: {
    clips: { type: 'string' },
    set: { type: 'string' },
    python: { type: 'string', default: 'python3' },
    'skip-speed': { type: 'boolean' },
  },
});
const dir = values.clips ?? mkdtempSync(join(tmpdir(), 'stemforge-analyze-'));
mkdirSync(dir, { recursive: true });

async function clip(name: string, render: () => Float32Array): Promise<string> {
  const path = join(dir, `${name}.wav`);
  return existsSync(path) ? path : writeWav(dir, name, render());
}

async function musicTempo(path: string): Promise<number | null> {
  try {
    const { channels } = await decodeToPlanar(path, { sampleRate: 44_100, channels: 1 });
    return Math.round(new MusicTempo(channels[0]!).tempo * 10) / 10;
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
  scoredOld.push({ name: t.name, tempoRef: t.bpm, tempoEst: ours });
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
    scores[i]! += s;
    return s;
  });
  scoredOld.push({ name: k.name, keyRef: k.key, keyEst: r.key });
  if (r.key !== k.key)
    console.log(`${k.name.padEnd(24)} ${k.key.padEnd(9)} -> ${r.key} (${mirexKeyScore(r.key, k.key)})`);
  void per;
}
for (const [i, [name]] of profileSets.entries())
  console.log(`${name.padEnd(22)} ${(scores[i]! / keySet.length).toFixed(3)} over ${keySet.length} clips`);
console.log('(music-tempo has no key detector; no npm key detector without GPL code was found to compare.)');

if (values.set) await newSet(values.set);
summary();

/** Real recordings nobody tuned on (bench/analyze-realset.py): per-clip table and scores. */
async function newSet(setDir: string) {
  const manifest = JSON.parse(readFileSync(join(setDir, 'manifest.json'), 'utf8')) as {
    name: string;
    file: string;
    seconds: number;
    tempo: number | null;
    key: string | null;
    tempoMethod: string | null;
    keyMethod: string | null;
  }[];
  console.log(`\n== new set: ${manifest.length} excerpts of real recordings (labels: see analyze-realset.py) ==`);
  console.log(
    `${'excerpt'.padEnd(36)} ${'tempo'.padStart(6)} ${'ours'.padStart(8)} ${'conf'.padStart(5)} ${'m-tempo'.padStart(8)}  ${'key'.padEnd(9)} ${'ours'.padEnd(9)} conf`,
  );
  let mtHit = 0;
  let mtOct = 0;
  let nTempo = 0;
  for (const e of manifest) {
    const r = await analyzeAudioDetailed({ mixPath: join(setDir, e.file) });
    const mt = e.tempo ? await musicTempo(join(setDir, e.file)) : null;
    if (e.tempo) {
      nTempo++;
      mtHit += +tempoHit(mt, e.tempo);
      mtOct += +tempoHitOctave(mt, e.tempo);
    }
    scoredNew.push({
      name: e.name,
      tempoRef: e.tempo,
      tempoEst: r.bpm,
      keyRef: e.key,
      keyEst: r.key,
      short: e.seconds <= 2,
    });
    const mark = (v: number | null, ref: number | null) =>
      ref === null ? `${v ?? '-'}` : `${v ?? '-'}${tempoHit(v, ref) ? ' ' : tempoHitOctave(v, ref) ? '²' : '✗'}`;
    const keyMark = e.key ? (r.key === e.key ? ' ' : mirexKeyScore(r.key, e.key) > 0 ? '~' : '✗') : '';
    console.log(
      `${e.name.slice(0, 36).padEnd(36)} ${String(e.tempo ?? '-').padStart(6)} ${mark(r.bpm, e.tempo).padStart(8)} ${String(r.tempoConfidence ?? '-').padStart(5)} ${(e.tempo ? mark(mt, e.tempo) : '').padStart(8)}  ${(e.key ?? '-').padEnd(9)} ${`${r.key ?? '-'}${keyMark}`.padEnd(9)} ${r.keyConfidence ?? '-'}`,
    );
  }
  const pctOf = (k: number, n: number) => `${((100 * k) / n).toFixed(1)} % (${k}/${n})`;
  console.log(`music-tempo on the new set: ${pctOf(mtHit, nTempo)} within 4 %, ${pctOf(mtOct, nTempo)} allowing x2/x3`);
}

/** The old (tuned-on) and new sets' scores side by side, from analyze-metrics.ts and mir_eval. */
function summary() {
  const score = (items: Scored[]) => {
    const t = items.filter((i) => i.tempoRef);
    const k = items.filter((i) => i.keyRef);
    const short = k.filter((i) => i.short);
    const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : Number.NaN);
    const fixed = (x: number) => (Number.isNaN(x) ? '-' : x.toFixed(3));
    return {
      acc1: `${fixed(mean(t.map((i) => +tempoHit(i.tempoEst ?? null, i.tempoRef!))))} of ${t.length}`,
      acc2: fixed(mean(t.map((i) => +tempoHitOctave(i.tempoEst ?? null, i.tempoRef!)))),
      key: `${fixed(mean(k.map((i) => mirexKeyScore(i.keyEst ?? null, i.keyRef!))))} of ${k.length}`,
      short: `${fixed(mean(short.map((i) => mirexKeyScore(i.keyEst ?? null, i.keyRef!))))} of ${short.length}`,
      nullKeys: `${short.filter((i) => i.keyEst === null).length}`,
    };
  };
  console.log('\n== summary: old set (synthetic + tempo-key, tuned on) beside the new set (real, not tuned on) ==');
  const rows: [string, ReturnType<typeof score>][] = [['old', score(scoredOld)]];
  if (scoredNew.length) rows.push(['new', score(scoredNew)]);
  console.log(
    `${'set'.padEnd(4)} ${'tempo Acc1'.padStart(13)} ${'Acc2'.padStart(6)} ${'key MIREX'.padStart(13)} ${'2 s MIREX'.padStart(12)} 2 s nulls`,
  );
  for (const [name, r] of rows)
    console.log(
      `${name.padEnd(4)} ${r.acc1.padStart(13)} ${r.acc2.padStart(6)} ${r.key.padStart(13)} ${r.short.padStart(12)} ${r.nullKeys}`,
    );
  const py = spawnSync(values.python!, [join(import.meta.dirname, 'analyze-score.py')], {
    input: JSON.stringify({ sets: Object.fromEntries(rows.map(([n]) => [n, n === 'old' ? scoredOld : scoredNew])) }),
    encoding: 'utf8',
  });
  if (py.status === 0) console.log(`\n== the same scored by mir_eval (bench/analyze-score.py) ==\n${py.stdout.trim()}`);
  if (scoredNew.length)
    console.log(
      `before  (code of ${BEFORE.commit}, same set, mir_eval): tempo Acc1 ${BEFORE.acc1}, Acc2 ${BEFORE.acc2}, key MIREX ${BEFORE.key}, 2 s MIREX ${BEFORE.short} (${BEFORE.shortNulls} of 27 null)`,
    );
  else
    console.log(
      `(mir_eval scoring skipped: ${values.python} bench/analyze-score.py failed: ${(py.stderr || py.error?.message || '').trim().split('\n').at(-1)})`,
    );
}

if (!values['skip-speed']) {
  console.log('\n== speed: a 4-minute song (240 s WAV, 44.1 kHz stereo) ==');
  const song = join(dir, 'four-minutes.wav');
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
      '-ar',
      '44100',
      '-ac',
      '2',
      song,
    ]);
  }
  const mtData = (await decodeToPlanar(song, { sampleRate: 44_100, channels: 1 })).channels[0]!;
  const runs = { inProcess: [] as number[], thread: [] as number[], musicTempo: [] as number[], cpu: [] as number[] };
  const timed = async (k: keyof typeof runs, f: () => unknown) => {
    const t = performance.now();
    const c = process.cpuUsage();
    await f();
    runs[k].push((performance.now() - t) / 1000);
    const used = process.cpuUsage(c);
    if (k === 'inProcess') runs.cpu.push((used.user + used.system) / 1e6);
  };
  // Alternating sides, so the other engineers' load hits all three alike.
  for (let i = 0; i < 3; i++) {
    await timed('inProcess', () => analyzeAudio({ mixPath: song }));
    await timed('thread', () => analyzeAudioInThread({ mixPath: song }));
    await timed('musicTempo', () => new MusicTempo(mtData));
  }
  const med = (k: keyof typeof runs) => runs[k].sort((a, b) => a - b)[1]!.toFixed(2);
  console.log(`analyzeAudio (in process, decode included), median of 3: ${med('inProcess')} s wall`);
  console.log(`  of which this process's CPU (ffmpeg's decoding runs beside it): ${med('cpu')} s`);
  console.log(`analyzeAudioInThread (worker thread), median of 3: ${med('thread')} s`);
  console.log(`music-tempo on the decoded samples (decode not counted), median of 3: ${med('musicTempo')} s`);
}
if (!values.clips) rmSync(dir, { recursive: true, force: true });
