/**
 * Key back ends measured by bench/analyze-key-time.ts against the shipped one (a whole-input chroma
 * correlated with averaged profiles, src/analysis/key.ts). Each reads an excerpt's tuned per-frame
 * 12-bin chromas (each summing to 1) and their sum, and names a key. Bench only: none ships.
 */
import { estimateKey, pearson } from '../src/analysis/key.ts';
import { formatKey, type Key } from '../src/analysis/key-names.ts';
import { KEY_PROFILES, KRUMHANSL, type KeyProfile, TEMPERLEY } from '../src/analysis/key-profiles.ts';

export interface Excerpt {
  /** Sum of the frames' chromas (the shipped key's input). */
  global: Float64Array;
  frames: Float64Array[];
}
export type KeyMethod = (x: Excerpt) => string | null;

const KEYS: Key[] = (['major', 'minor'] as const).flatMap((mode) =>
  [...Array(12).keys()].map((tonic) => ({ tonic, mode })),
);
const argmax = (xs: number[]) => xs.reduce((b, v, i) => (v > xs[b]! ? i : b), 0);
const nameOf = (scores: number[]) => formatKey(KEYS[argmax(scores)]!);

/** The 24 keys' mean profile correlation (major keys C..B, then minor). */
function keyScores(x: ArrayLike<number>, profiles: readonly KeyProfile[]): number[] {
  return KEYS.map((k) => profiles.reduce((a, p) => a + pearson(x, p[k.mode], k.tonic), 0) / profiles.length);
}

/** A note and its first `harmonics` partials (weights slope^(h-1)), split between semitones by cos². */
function addNote(p: number[], pc: number, w: number, harmonics: number, slope: number): void {
  for (let h = 1; h <= harmonics; h++) {
    const idx = pc + 12 * Math.log2(h);
    const lo = Math.floor(idx);
    const d = idx - lo;
    const e = w * slope ** (h - 1);
    p[lo % 12]! += e * Math.cos((Math.PI / 2) * d) ** 2;
    if (d > 0) p[(lo + 1) % 12]! += e * Math.sin((Math.PI / 2) * d) ** 2;
  }
}

function addTriad(p: number[], root: number, third: number, fifth: number, w: number, harmonics: number): void {
  for (const interval of [0, third, fifth]) addNote(p, (root + interval) % 12, w, harmonics, 0.6);
}

/**
 * Gómez 2006's polyphonic profiles ("Tonal description of polyphonic audio", as in Essentia's Key
 * with usePolyphony): a key's profile is the sum of its chords (tonic, subdominant and dominant, or
 * all diatonic triads), each weighted by the monophonic profile at its root, each note with its
 * partials.
 */
export function polyphonicProfile(prof: KeyProfile, allChords: boolean, harmonics: number): KeyProfile {
  const major = Array(12).fill(0) as number[];
  const minor = Array(12).fill(0) as number[];
  const P = prof.major;
  const Q = prof.minor;
  const chordsMajor: [number, number, number][] = [
    [0, 4, 7],
    [5, 4, 7],
    [7, 4, 7],
  ];
  const chordsMinor: [number, number, number][] = [
    [0, 3, 7],
    [5, 3, 7],
    [7, 4, 7],
  ];
  if (allChords) {
    chordsMajor.push([2, 3, 7], [4, 3, 7], [9, 3, 7], [11, 3, 6]);
    chordsMinor.push([2, 3, 6], [3, 4, 8], [8, 4, 7], [11, 3, 6]);
  }
  for (const [root, third, fifth] of chordsMajor) addTriad(major, root, third, fifth, P[root]!, harmonics);
  for (const [root, third, fifth] of chordsMinor)
    addTriad(minor, root, third, fifth, Q[root === 11 ? 8 : root]!, harmonics);
  return { name: `${prof.name}-poly`, major, minor };
}

/** 24 unit-norm triad templates with partials: major roots C..B, then minor roots. */
function triadTemplates(harmonics: number): number[][] {
  const out: number[][] = [];
  for (const third of [4, 3])
    for (let root = 0; root < 12; root++) {
      const p = Array(12).fill(0) as number[];
      addTriad(p, root, third, 7, 1, harmonics);
      const norm = Math.hypot(...p);
      out.push(p.map((v) => v / norm));
    }
  return out;
}

/**
 * P(chord | key) over the 24 triads: the key's diatonic triads (major: I ii iii IV V vi; minor:
 * i III iv v V VI VII) weighted by the profile at their root, every other triad `floor` times the
 * largest weight.
 */
function chordGivenKey(prof: KeyProfile, floor: number): number[][] {
  const majorDegrees: [number, number][] = [
    [0, 0],
    [2, 1],
    [4, 1],
    [5, 0],
    [7, 0],
    [9, 1],
  ];
  const minorDegrees: [number, number][] = [
    [0, 1],
    [3, 0],
    [5, 1],
    [7, 0],
    [7, 1],
    [8, 0],
    [10, 0],
  ];
  return KEYS.map((k) => {
    const w = Array(24).fill(0) as number[];
    const profile = k.mode === 'major' ? prof.major : prof.minor;
    for (const [degree, minor] of k.mode === 'major' ? majorDegrees : minorDegrees)
      w[minor * 12 + ((k.tonic + degree) % 12)] = profile[degree]!;
    const top = Math.max(...w);
    const floored = w.map((v) => Math.max(v, floor * top));
    const total = floored.reduce((a, b) => a + b, 0);
    return floored.map((v) => v / total);
  });
}

/**
 * Key over time from chords: every frame's chord likelihoods exp(beta * (cos - 1)) against the 24
 * triads, and a key's score the sum over frames of log sum_c P(c | key) L(frame | c). The key of a
 * fixed-key HMM over chord observations (Noland & Sandler 2007 style, without key changes).
 */
export function chordKeyMethod(prof: KeyProfile, beta: number, harmonics: number): KeyMethod {
  const templates = triadTemplates(harmonics);
  const given = chordGivenKey(prof, 0.05);
  return (x) => {
    const scores = Array(24).fill(0) as number[];
    for (const f of x.frames) {
      const norm = Math.hypot(...f) || 1;
      const like = templates.map((t) => Math.exp(beta * (t.reduce((a, v, i) => a + v * f[i]!, 0) / norm - 1)));
      for (let k = 0; k < 24; k++) {
        let p = 0;
        for (let c = 0; c < 24; c++) p += given[k]![c]! * like[c]!;
        scores[k]! += Math.log(p + 1e-300);
      }
    }
    return nameOf(scores);
  };
}

/** Coefficient of variation of a 12-bin chroma (the frame tonality of chroma.ts). */
function variation(x: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < 12; i++) m += x[i]!;
  m /= 12;
  let v = 0;
  for (let i = 0; i < 12; i++) v += (x[i]! - m) ** 2;
  return m > 0 ? Math.sqrt(v / 12) / m : 0;
}

function sumOf(frames: Float64Array[], map: (f: Float64Array) => ArrayLike<number>): Float64Array {
  const g = new Float64Array(12);
  for (const f of frames) {
    const v = map(f);
    for (let i = 0; i < 12; i++) g[i]! += v[i]!;
  }
  return g;
}

/**
 * Temperley's Bayesian key finder (Temperley 2007, "Music and Probability", ch. 4): a key's
 * likelihood is the product over segments of p(pc present | key) for the pitch classes present and
 * 1 - p for those absent, with his Kostka-Payne presence probabilities (Essentia's
 * "temperley2005"). A segment is `span` frames; a class's presence is soft: its largest share of
 * the segment's frames over `threshold` times the frame's top class, capped at 1.
 */
export const KOSTKA_PAYNE = {
  major: [0.748, 0.06, 0.488, 0.082, 0.67, 0.46, 0.096, 0.715, 0.104, 0.366, 0.057, 0.4],
  minor: [0.712, 0.084, 0.474, 0.618, 0.049, 0.46, 0.105, 0.747, 0.404, 0.067, 0.133, 0.33],
};
export function bayesianKeyMethod(span: number, threshold: number): KeyMethod {
  return (x) => {
    const scores = Array(24).fill(0) as number[];
    for (let t0 = 0; t0 < x.frames.length; t0 += span) {
      const q = new Float64Array(12);
      for (const f of x.frames.slice(t0, t0 + span)) {
        const top = Math.max(...f);
        for (let i = 0; i < 12; i++) q[i] = Math.max(q[i]!, Math.min(1, f[i]! / (threshold * top)));
      }
      KEYS.forEach((k, n) => {
        const p = KOSTKA_PAYNE[k.mode];
        for (let i = 0; i < 12; i++) {
          const pi = p[(i - k.tonic + 12) % 12]!;
          scores[n]! += q[i]! * Math.log(pi) + (1 - q[i]!) * Math.log(1 - pi);
        }
      });
    }
    return nameOf(scores);
  };
}

/** Every back end measured, by name. */
export function keyMethods(): Record<string, KeyMethod> {
  const m: Record<string, KeyMethod> = {};
  const shipped = (x: ArrayLike<number>) => estimateKey(x)?.name ?? null;
  m['shipped: global chroma, KK+T+edma'] = (x) => shipped(x.global);
  m['sum of per-frame correlations'] = (x) => {
    const total = Array(24).fill(0) as number[];
    for (const f of x.frames) for (const [i, v] of keyScores(f, KEY_PROFILES).entries()) total[i]! += v;
    return nameOf(total);
  };
  m['frames weighted by tonality (CV)'] = (x) => shipped(sumOf(x.frames, (f) => f.map((v) => v * variation(f))));
  m['frames weighted by tonality (CV^2)'] = (x) => shipped(sumOf(x.frames, (f) => f.map((v) => v * variation(f) ** 2)));
  m['temporal median of 3 frames (HPSS-like)'] = (x) => {
    const g = new Float64Array(12);
    const at = (t: number) => x.frames[Math.min(x.frames.length - 1, Math.max(0, t))]!;
    for (let t = 0; t < x.frames.length; t++)
      for (let i = 0; i < 12; i++) g[i]! += [at(t - 1)[i]!, at(t)[i]!, at(t + 1)[i]!].sort((a, b) => a - b)[1]!;
    return shipped(g);
  };
  for (const g of [0.5]) m[`global chroma ^${g}`] = (x) => shipped(x.global.map((v) => v ** g));
  m['frames normalised to their max'] = (x) => shipped(sumOf(x.frames, (f) => f.map((v) => v / Math.max(...f))));
  for (const th of [0.35, 0.5])
    m[`pitch-class presence (>= ${th} of frame max)`] = (x) =>
      shipped(sumOf(x.frames, (f) => f.map((v) => Math.min(1, v / (th * Math.max(...f))))));
  for (const all of [false, true])
    for (const h of [1, 4]) {
      const profiles = KEY_PROFILES.map((p) => polyphonicProfile(p, all, h));
      m[`Gómez polyphonic, ${all ? 'all triads' : 'I IV V'}, ${h} partials`] = (x) =>
        nameOf(keyScores(x.global, profiles));
    }
  for (const [name, prof] of [
    ['KK', KRUMHANSL],
    ['Temperley', TEMPERLEY],
  ] as const)
    for (const beta of [10, 30]) m[`chord model (${name} root weights), beta ${beta}`] = chordKeyMethod(prof, beta, 4);
  for (const span of [1, 4])
    for (const th of [0.25, 0.5])
      m[`Temperley Bayesian, ${span}-frame segments, presence ${th}`] = bayesianKeyMethod(span, th);
  m['Kostka-Payne profile, correlation'] = (x) =>
    estimateKey(x.global, [{ name: 'kostka-payne', ...KOSTKA_PAYNE }])?.name ?? null;
  return m;
}
