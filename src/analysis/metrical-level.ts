// Which metrical level is the beat (estimateTempo, tempo.ts, step 3): read from where kicks and snares fall.
import { sampleAt } from './autocorrelation.ts';

/**
 * A metrical level's off-beats count as beats when their body-band (kick/snare) periodicity is at
 * least OFFBEAT_AS_BEAT of the on-beats'; they are mere subdivisions below OFFBEAT_AS_SUBDIVISION.
 * The gap between the two is hysteresis: in between, the prior's choice stands.
 */
const OFFBEAT_AS_BEAT = { acf: 0.6, phase: 0.55 };
const OFFBEAT_AS_SUBDIVISION = { acf: 0.5, phase: 0.35 };

/**
 * Moves between the winner's double and half by where the kicks and snares fall: the beat is the
 * level whose off-beats are mere subdivisions (hi-hats), while a level whose off-beats carry
 * kicks or snares as strongly as its beats is too slow (the drum & bass or punk "half time" trap);
 * the prior alone barely tells 87 from 174 BPM, an octave apart around its centre (110 BPM).
 */
export function chooseMetricalLevel(
  bodyAcf: Float32Array,
  body: Float32Array,
  frameRate: number,
  bpm: number,
  opts: { minBpm: number; maxBpm: number },
): number {
  // `parts` = 2: the off-beat is halfway; 3: the two off-beats of a triple grouping (a waltz's bar
  // of three beats, or a compound beat of three tatums).
  const acfRatio = (b: number, parts: number) => {
    const period = (60 * frameRate) / b;
    const on = peakNear(bodyAcf, period);
    return on > 0 ? Math.max(0, peakNear(bodyAcf, period / parts)) / on : 1;
  };
  const phase = (b: number, parts: number) => phaseRatio(body, (60 * frameRate) / b, parts);
  // Both views must agree: the lag view survives tempo drift, the phase view tells which off-beats
  // are filled (a dembow's syncopated snares fill lags but not the off-beat positions).
  const offbeatsAreBeats = (b: number, parts: number) =>
    acfRatio(b, parts) >= OFFBEAT_AS_BEAT.acf && phase(b, parts) >= OFFBEAT_AS_BEAT.phase;
  const offbeatsAreSubdivisions = (b: number, parts: number) =>
    acfRatio(b, parts) < OFFBEAT_AS_SUBDIVISION.acf && phase(b, parts) < OFFBEAT_AS_SUBDIVISION.phase;
  let b = bpm;
  while (2 * b <= opts.maxBpm && offbeatsAreBeats(b, 2)) b *= 2;
  while (b / 2 >= opts.minBpm && offbeatsAreSubdivisions(b / 2, 2)) b /= 2;
  if (b !== bpm) return b;
  // Same rule for the triple levels the prior can land on: a fast waltz's bar (kicks on 1, the
  // snare or chord on 2 and 3: those are beats) or a 12/8's tatum (only hi-hats between the
  // kicks and snares: those are subdivisions).
  if (3 * b <= opts.maxBpm && offbeatsAreBeats(b, 3)) return 3 * b;
  if (b / 3 >= opts.minBpm && offbeatsAreSubdivisions(b / 3, 3)) return b / 3;
  return b;
}

/**
 * Mean body-band onset strength on the off-beats (the `parts - 1` points evenly between beats) over
 * that on the beats of a level with period `period` frames, the beat phase found anew in every
 * 8-beat window so a drifting tempo keeps it.
 */
function phaseRatio(body: Float32Array, period: number, parts = 2): number {
  const beats = 8;
  const span = beats * period;
  let on = 0;
  let off = 0;
  const at = (x: number) => {
    const i = Math.round(x);
    return Math.max(body[i - 1] ?? 0, body[i] ?? 0, body[i + 1] ?? 0);
  };
  for (let start = 0; start + span + period < body.length; start += span / 2) {
    let bestOn = -1;
    let bestPhase = 0;
    for (let phase = 0; phase < period; phase += 1) {
      let sum = 0;
      for (let k = 0; k < beats; k++) sum += at(start + phase + k * period);
      if (sum > bestOn) {
        bestOn = sum;
        bestPhase = phase;
      }
    }
    let sumOff = 0;
    for (let k = 0; k < beats; k++)
      for (let j = 1; j < parts; j++) sumOff += at(start + bestPhase + (k + j / parts) * period) / (parts - 1);
    on += bestOn;
    off += sumOff;
  }
  return on > 0 ? off / on : 1;
}

function peakNear(acf: Float32Array, lag: number): number {
  const tol = Math.max(1, 0.02 * lag);
  let peak = -Infinity;
  for (let x = lag - tol; x <= lag + tol; x += 0.25) peak = Math.max(peak, sampleAt(acf, x));
  return peak;
}
