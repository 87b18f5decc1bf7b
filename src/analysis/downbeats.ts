// Which beats start a bar, and how many beats a bar holds: read from where the harmony changes and
// where the kicks and bass notes fall.

export interface BeatFeatures {
  /** Per beat: 1 - cosine similarity of the chroma over this beat and over the one before. */
  chordChange: Float64Array;
  /** Per beat: the same for the bass chroma (peaks below 250 Hz); null without one. */
  bassChange: Float64Array | null;
  /** Per beat: body-band onset strength (kicks, bass notes) at the beat. */
  body: Float64Array;
}

export interface DownbeatOptions {
  /** Weights of the standardised features (chordChange, bassChange, body). */
  weights?: [number, number, number];
  /** Cost, in standard deviations, of a bar that is not `beatsPerBar` long (a beat missed or added). */
  phaseChangeCost?: number;
  /** 3/4 wins only when its bar evidence beats 4/4's by this factor: a 4/4 bar also shows its halves. */
  tripleMargin?: number;
}

export const DOWNBEAT_DEFAULTS: Required<DownbeatOptions> = {
  weights: [1, 0.5, 0.5],
  phaseChangeCost: 3,
  tripleMargin: 1.1,
};

export interface Downbeats {
  beatsPerBar: number;
  /** Indices into the beats. */
  indices: number[];
}

/**
 * Bar phase and length from per-beat evidence (after Davies & Plumbley 2006's use of harmonic
 * change for downbeats, with the body band's kicks and bass added, as Klapuri et al. 2006 use the
 * low band): every feature is standardised over the beats and summed with weights into one
 * downbeat score per beat. The meter (3 or 4 beats) is the one whose best phase collects the most
 * score on its downbeats; then a Viterbi pass over bar positions places the downbeats, paying
 * `phaseChangeCost` wherever a bar is not the meter's length, so that one beat the tracker missed
 * or added moves the phase instead of ruining every bar after it.
 */
export function findDownbeats(features: BeatFeatures, options: DownbeatOptions = {}): Downbeats | null {
  const { weights, phaseChangeCost, tripleMargin } = { ...DOWNBEAT_DEFAULTS, ...options };
  const n = features.body.length;
  if (n < 6) return null;
  const score = new Float64Array(n);
  const parts = [features.chordChange, features.bassChange, features.body];
  parts.forEach((f, i) => {
    if (!f) return;
    const z = standardise(f);
    for (let k = 0; k < n; k++) score[k]! += weights[i]! * z[k]!;
  });
  const evidence = (m: number) => {
    let best = -Infinity;
    for (let phase = 0; phase < m; phase++) {
      let sum = 0;
      let count = 0;
      for (let k = phase; k < n; k += m) {
        sum += score[k]!;
        count++;
      }
      best = Math.max(best, sum / Math.max(1, count));
    }
    return best;
  };
  const beatsPerBar = evidence(3) > tripleMargin * evidence(4) ? 3 : 4;
  return { beatsPerBar, indices: placeBars(score, beatsPerBar, phaseChangeCost) };
}

/** Viterbi over bar positions 0..m-1: position 0 earns the beat's score; a skip costs `cost`. */
function placeBars(score: Float64Array, m: number, cost: number): number[] {
  const n = score.length;
  const back = new Int32Array(n * m);
  let prev = new Float64Array(m);
  for (let p = 0; p < m; p++) prev[p] = p === 0 ? score[0]! : 0;
  for (let k = 1; k < n; k++) {
    const cur = new Float64Array(m);
    let best = 0;
    for (let p = 1; p < m; p++) if (prev[p]! > prev[best]!) best = p;
    for (let p = 0; p < m; p++) {
      const from = (p + m - 1) % m;
      const regular = prev[from]!;
      const jump = prev[best]! - cost;
      const src = regular >= jump ? from : best;
      cur[p] = Math.max(regular, jump) + (p === 0 ? score[k]! : 0);
      back[k * m + p] = src;
    }
    prev = cur;
  }
  let p = 0;
  for (let q = 1; q < m; q++) if (prev[q]! > prev[p]!) p = q;
  const indices: number[] = [];
  for (let k = n - 1; k >= 0; k--) {
    if (p === 0) indices.push(k);
    p = back[k * m + p]!;
  }
  return indices.reverse();
}

function standardise(x: Float64Array): Float64Array {
  let mean = 0;
  for (const v of x) mean += v;
  mean /= x.length;
  let sq = 0;
  for (const v of x) sq += (v - mean) ** 2;
  const sd = Math.sqrt(sq / x.length) || 1;
  return x.map((v) => (v - mean) / sd);
}
