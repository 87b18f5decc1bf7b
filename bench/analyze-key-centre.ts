/**
 * "No tonal centre" (issue 44): the evidence the key rule reads, per input, for tonal and atonal
 * material (bench only). Writes one JSON line per analysed input (the reported key, both methods'
 * keys, the profile's score and margin, the model's probability, the window evidence of
 * key-reading.ts) and prints a summary per group and length.
 *
 *   node bin/run-ts.mjs bench/analyze-key-centre.ts --classical DIR [--realset DIR] [--espeak] [--out FILE]
 *   node bin/run-ts.mjs bench/analyze-key-centre.ts --realset DIR --atonal DIR2 --espeak-other [--out FILE]
 *
 * --classical: what bench/analyze-key-classical.py wrote (tonal renders with their key, atonal ones
 * without), each analysed on its first 30 s and on 10, 5 and 2 s from its middle; ../shared's
 * speech (each utterance, 10 s and 2 s of it, and the three joined), noise and drum stem, and the
 * tonal shared tracks (music/, tempo-key/: 30 s from 30 s in, 10 s and 2 s). --realset: every clip
 * of bench/analyze-realset.py's manifest as it is (30 s and 2 s). --espeak: English sentences
 * spoken by espeak-ng (Debian), five voices, each alone and joined (speech that was never looked at
 * while the rule was set). Held out: --atonal DIR2, note soups of another seed
 * (`bench/analyze-key-classical.py DIR2 --soups 4401`, with a kind the first set lacks);
 * --espeak-other, sentences in five other languages (each alone and the three twice over).
 * --real-10s: also 10 s from the middle of each real 30 s excerpt.
 * --vibrato: a sung-like D major tune with vibrato of 0-100 cents. Each input carries a `half` (A or B) by name, for development and held-out.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyzeAudioDetailed } from '../src/analysis/analyze-audio.ts';
import { mirEvalKeyScore } from '../support/analyze-metrics.ts';
import { SYNTH_RATE, writeWav } from '../support/fixtures/synth-clips.ts';
import { sharedPath } from '../support/shared.ts';

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const classical = arg('--classical');
const realset = arg('--realset');
const outFile = arg('--out') ?? '/tmp/key-centre.jsonl';
const work = mkdtempSync(join(tmpdir(), 'stemforge-key-centre-'));

interface Input {
  name: string;
  path: string;
  kind: string;
  key: string | null;
  part: string;
  half: 'A' | 'B';
}
const inputs: Input[] = [];
let n = 0;
/** Alternating halves in name order within each kind (a piece's excerpts stay in its half). */
const halves = new Map<string, 'A' | 'B'>();
const counts = new Map<string, number>();
function half(kind: string, piece: string): 'A' | 'B' {
  const k = `${kind}/${piece}`;
  if (!halves.has(k)) {
    const c = counts.get(kind) ?? 0;
    counts.set(kind, c + 1);
    halves.set(k, c % 2 === 0 ? 'A' : 'B');
  }
  return halves.get(k)!;
}

const seconds = (path: string) =>
  Number(execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', path]));

function cut(path: string, start: number, length: number): string {
  const out = join(work, `${n++}.wav`);
  execFileSync('ffmpeg', [
    '-nostdin',
    '-v',
    'error',
    '-y',
    '-ss',
    String(start),
    '-t',
    String(length),
    '-i',
    path,
    '-ac',
    '1',
    out,
  ]);
  return out;
}

/** The first `max` s from `from` (whole), and 10 s and 2 s from that part's middle. */
function parts(name: string, path: string, kind: string, key: string | null, from = 0, max = 30): void {
  const total = Math.min(max, seconds(path) - from);
  const h = half(kind, name);
  inputs.push({ name, path: cut(path, from, total), kind, key, part: 'whole', half: h });
  for (const len of [10, 5, 2])
    if (total > len)
      inputs.push({ name, path: cut(path, from + (total - len) / 2, len), kind, key, part: String(len), half: h });
}

function concat(paths: string[]): string {
  const out = join(work, `${n++}.wav`);
  const list = join(work, `${n++}.txt`);
  writeFileSync(list, paths.map((p) => `file '${p}'`).join('\n'));
  execFileSync('ffmpeg', [
    '-nostdin',
    '-v',
    'error',
    '-y',
    '-f',
    'concat',
    '-safe',
    '0',
    '-i',
    list,
    '-ac',
    '1',
    '-ar',
    '22050',
    out,
  ]);
  return out;
}

if (classical) {
  const manifest = JSON.parse(readFileSync(join(classical, 'manifest.json'), 'utf8')) as {
    file: string;
    kind: string;
    key: string | null;
  }[];
  for (const p of manifest) parts(p.file.replace('.wav', ''), join(classical, p.file), p.kind, p.key);
  const speech = ['198-209-0000', '3436-172162-0000', '5703-47212-0000'].map((id) =>
    sharedPath('audio', 'speech', `${id}.hq.ogg`),
  );
  speech.forEach((s, i) => {
    parts(`speech-${i}`, s, 'speech', null, 0, 60);
  });
  const wavs = speech.map((s) => cut(s, 0, 60));
  inputs.push({ name: 'speech-all', path: concat(wavs), kind: 'speech', key: null, part: 'joined', half: 'A' });
  inputs.push({
    name: 'speech-01',
    path: concat(wavs.slice(0, 2)),
    kind: 'speech',
    key: null,
    part: 'joined',
    half: 'A',
  });
  parts('drums', sharedPath('audio', 'musdb-falcon69', 'drums.wav'), 'noise', null);
  parts('noise-street', sharedPath('audio', 'denoise', 'noise_freesound_573577.wav'), 'noise', null);
  parts('noise-fan', sharedPath('audio', 'denoise-dev', 'noise_fan_44k.wav'), 'noise', null);
  const shared: [string, string, string | null][] = [
    ['music/Karissa_Hobbs_-_Lets_Go_Fishin.hq.ogg', 'karissa', 'Bb major'],
    ['music/Kevin_MacLeod_-_Vibe_Ace.hq.ogg', 'vibe-ace', null],
    ['music/admiralbob77_-_Choice_-_Drum-bass.hq.ogg', 'choice', null],
    ['tempo-key/126bpm.mp3', '126bpm', null],
    ['tempo-key/EDM_Eb_major_2min.mp3', 'edm', 'Eb major'],
    ['tempo-key/sorohanro_-_solo-trumpet-06.hq.ogg', 'trumpet', null],
  ];
  for (const [file, name, key] of shared) {
    const path = sharedPath('audio', ...file.split('/'));
    parts(name, path, 'shared-music', key, seconds(path) > 60 ? 30 : 0);
  }
}

if (process.argv.includes('--espeak')) {
  const sentences = [
    'The committee will meet again on Thursday to review the budget for the coming year.',
    'She walked along the river until the lights of the town disappeared behind the hills.',
    'Please remember to bring your passport and two photographs to the office before noon.',
    'In the morning the fishermen mended their nets and talked about the weather.',
    'Scientists have measured the temperature of the ocean at many depths for a century.',
    'He opened the letter slowly, read it twice, and then put it back into the drawer.',
  ];
  const voices = ['en', 'en-us', 'en+f3', 'en+m3', 'en-gb-x-rp'];
  voices.forEach((voice, v) => {
    const files = sentences.map((s, i) => {
      const out = join(work, `espeak-${v}-${i}.wav`);
      execFileSync('espeak-ng', ['-v', voice, '-s', String(150 + 10 * v), '-w', out, s]);
      return out;
    });
    const h = v % 2 === 0 ? 'A' : 'B';
    inputs.push({ name: `espeak-${voice}`, path: files[v]!, kind: 'espeak', key: null, part: 'one', half: h });
    inputs.push({ name: `espeak-${voice}`, path: concat(files), kind: 'espeak', key: null, part: 'joined', half: h });
  });
}

const atonal = arg('--atonal');
if (atonal) {
  const manifest = JSON.parse(readFileSync(join(atonal, 'manifest.json'), 'utf8')) as { file: string }[];
  for (const p of manifest) parts(p.file.replace('.wav', ''), join(atonal, p.file), 'atonal-heldout', null);
}

if (process.argv.includes('--espeak-other')) {
  // Other languages, other sentences: speech the rule was not set on.
  const spoken: [string, string[]][] = [
    [
      'de',
      [
        'Der Zug nach Hamburg fährt heute eine halbe Stunde später ab.',
        'Im Garten blühen schon die ersten Rosen, obwohl es noch kalt ist.',
        'Wir haben den ganzen Abend über alte Zeiten gesprochen und gelacht.',
      ],
    ],
    [
      'fr-fr',
      [
        'Le marché ouvre tous les samedis matin sur la place de la mairie.',
        'Elle a traversé la ville à pied pour retrouver son ancien professeur.',
        'Les enfants ont construit une cabane au fond du jardin cet été.',
      ],
    ],
    [
      'es',
      [
        'El tren de la mañana siempre llega tarde cuando llueve mucho.',
        'Mi abuela cocinaba una sopa de verduras todos los domingos.',
        'Los estudiantes leyeron el libro entero antes del examen final.',
      ],
    ],
    [
      'it',
      [
        'La biblioteca resta aperta fino alle dieci di sera durante gli esami.',
        'Abbiamo camminato lungo la spiaggia fino al tramonto.',
        'Il medico ha detto che servono due settimane di riposo.',
      ],
    ],
    [
      'nl',
      [
        'De fietsenmaker aan de overkant is op maandag altijd gesloten.',
        'We hebben de hele middag in het museum doorgebracht.',
        'Het regende zo hard dat de straten onder water stonden.',
      ],
    ],
  ];
  spoken.forEach(([voice, lines], v) => {
    const files = lines.map((text, i) => {
      const out = join(work, `espeak-other-${v}-${i}.wav`);
      execFileSync('espeak-ng', ['-v', voice, '-s', String(140 + 10 * v), '-p', String(35 + 5 * v), '-w', out, text]);
      return out;
    });
    inputs.push({ name: `espeak-${voice}`, path: files[0]!, kind: 'espeak-other', key: null, part: 'one', half: 'B' });
    inputs.push({
      name: `espeak-${voice}`,
      path: concat([...files, ...files]),
      kind: 'espeak-other',
      key: null,
      part: 'joined',
      half: 'B',
    });
  });
}

if (process.argv.includes('--vibrato')) {
  // A tune in D major, 30 s, one voice (8 harmonics) with vibrato of 0-100 cents at 5.5 Hz, with
  // and without an 80 ms portamento into each note: where held pitch ends for the grid rule.
  const tune = [62, 64, 66, 67, 69, 67, 66, 64, 62, 69, 71, 69, 67, 66, 64, 62, 66, 69, 74, 73, 71, 69, 67, 66, 64, 62];
  for (const extent of [0, 25, 50, 75, 100])
    for (const glide of [0, 0.08]) {
      const out = new Float32Array(30 * SYNTH_RATE);
      const noteLen = 30 / tune.length;
      let phase = 0;
      for (let i = 0; i < out.length; i++) {
        const t = i / SYNTH_RATE;
        const k = Math.min(tune.length - 1, Math.floor(t / noteLen));
        const into = t - k * noteLen;
        const midi =
          glide && k > 0 && into < glide ? tune[k - 1]! + (tune[k]! - tune[k - 1]!) * (into / glide) : tune[k]!;
        phase +=
          (2 * Math.PI * 440 * 2 ** ((midi - 69 + (extent / 100) * Math.sin(2 * Math.PI * 5.5 * t)) / 12)) / SYNTH_RATE;
        let v = 0;
        for (let h = 1; h <= 8; h++) v += Math.sin(h * phase) / h ** 1.2;
        out[i] = 0.2 * v * Math.min(1, into / 0.05);
      }
      const path = await writeWav(work, `vibrato-${extent}-${glide}`, out);
      inputs.push({
        name: `vibrato-${extent}c-glide${glide}`,
        path,
        kind: 'vibrato',
        key: 'D major',
        part: 'whole',
        half: 'A',
      });
    }
}

if (realset) {
  const manifest = JSON.parse(readFileSync(join(realset, 'manifest.json'), 'utf8')) as {
    name: string;
    file: string;
    key: string | null;
    seconds: number;
  }[];
  for (const c of manifest) {
    inputs.push({
      name: c.name.replace(/-2s$/, ''),
      path: join(realset, c.file),
      kind: 'real',
      key: c.key,
      part: c.seconds <= 2 ? '2' : '30',
      half: 'B',
    });
    // --real-10s: also 10 s from the middle of each 30 s excerpt (the shortest length judged).
    if (process.argv.includes('--real-10s') && c.seconds >= 20)
      inputs.push({
        name: c.name,
        path: cut(join(realset, c.file), c.seconds / 2 - 5, 10),
        kind: 'real',
        key: c.key,
        part: '10',
        half: 'B',
      });
  }
}

const lines: string[] = [];
try {
  for (const input of inputs) {
    const r = await analyzeAudioDetailed({ mixPath: input.path });
    const row = {
      name: input.name,
      kind: input.kind,
      part: input.part,
      half: input.half,
      label: input.key,
      seconds: r.seconds,
      key: r.key,
      confidence: r.keyConfidence,
      method: r.keyMethod,
      tonality: Math.max(r.chromaContrast ?? 0, (r.frameContrast ?? 0) - 0.05),
      contrast: r.chromaContrast,
      profileKey: r.profileKey,
      score: r.keyScore,
      margin: r.keyMargin,
      modelKey: r.modelKey,
      p: r.modelKeyProbability,
      noCentre: r.keyNoCentre,
      grid: r.pitchGrid,
      // Before the rule (issue 44 part 3) the profile's key was reported wherever it now says no centre.
      keyBefore: r.keyNoCentre ? r.profileKey : r.key,
      mirex: input.key ? mirEvalKeyScore(r.key, input.key) : null,
      mirexBefore: input.key ? mirEvalKeyScore(r.keyNoCentre ? r.profileKey : r.key, input.key) : null,
    };
    lines.push(JSON.stringify(row));
    writeFileSync(outFile, `${lines.join('\n')}\n`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
interface Row {
  kind: string;
  part: string;
  half: string;
  key: string | null;
  keyBefore: string | null;
  mirex: number | null;
  mirexBefore: number | null;
}
const rows = lines.map((l) => JSON.parse(l) as Row);
const mean = (v: number[]) => (v.length ? (v.reduce((a, b) => a + b, 0) / v.length).toFixed(3) : '-');
console.log('kind | half | part | inputs | keyed before | keyed now | MIREX of the labelled, before | now');
for (const kind of [...new Set(rows.map((r) => r.kind))])
  for (const h of ['A', 'B'])
    for (const part of [...new Set(rows.filter((r) => r.kind === kind).map((r) => r.part))]) {
      const g = rows.filter((r) => r.kind === kind && r.part === part && r.half === h);
      if (!g.length) continue;
      const lab = g.filter((r) => r.mirex !== null);
      console.log(
        `${kind} | ${h} | ${part} | ${g.length} | ${g.filter((r) => r.keyBefore).length} | ${g.filter((r) => r.key).length} | ${mean(lab.map((r) => r.mirexBefore!))} | ${mean(lab.map((r) => r.mirex!))}`,
      );
    }
