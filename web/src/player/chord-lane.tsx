import type { JobAnalysisBody } from '../../../src/contract/practice.ts';

type Chord = NonNullable<JobAnalysisBody['chords']>[number];

/** "N" (no chord) reads as a dash. */
const chordName = (c: string) => (c === 'N' ? '–' : c);

/**
 * The chords under the waveforms, on the same time axis: one box per chord, the one at the playhead
 * highlighted (and marked current for assistive technology). Without chords it says why.
 */
export function ChordLane({
  chords,
  duration,
  position,
  why,
}: {
  chords: Chord[] | null;
  duration: number;
  position: number;
  why: string;
}) {
  if (!chords?.length || duration <= 0) return <p class="muted chord-lane-empty">{why}</p>;
  const now = chords.find((c) => position >= c.start && position < c.end);
  return (
    <ul class="chord-lane" aria-label="Chords" data-chord={now?.chord ?? ''}>
      {chords.map((c) => {
        const left = (c.start / duration) * 100;
        const width = ((Math.min(c.end, duration) - c.start) / duration) * 100;
        return (
          <li
            key={c.start}
            class={c === now ? 'chord now' : c.chord === 'N' ? 'chord none' : 'chord'}
            aria-current={c === now ? 'true' : undefined}
            title={`${chordName(c.chord)} at ${c.start.toFixed(1)} s`}
            style={{ left: `${left}%`, width: `${width}%` }}
          >
            {chordName(c.chord)}
          </li>
        );
      })}
    </ul>
  );
}
