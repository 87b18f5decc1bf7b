import type { Multitrack } from './multitrack.ts';
import type { Stem } from './stem-player.tsx';
import { effectiveGain } from './track.ts';
import { Waveform } from './waveform.tsx';

/** One stem of the player: its name, waveform, and mute, solo and volume (or Listen, in A/B). */
export function StemRow({
  stem: s,
  engine,
  mode,
  duration,
  ready,
  snap,
  number,
}: {
  stem: Stem;
  engine: Multitrack | null;
  mode: 'mix' | 'ab';
  duration: number;
  ready: boolean;
  snap: (t: number) => number;
  /** Its number for the 1-9 shortcuts. */
  number: number;
}) {
  const t = engine?.tracks.find((x) => x.name === s.name);
  const gain = t ? t.gain.gain.value : 1;
  const anySolo = engine?.tracks.some((x) => x.soloed) ?? false;
  const heard = engine?.tracks.find((x) => x.soloed)?.name;
  return (
    <li
      class="stem"
      data-stem={s.name}
      data-gain={gain.toFixed(3)}
      // When (context clock) and from where (buffer offset) this stem's source started: equal
      // for every stem after each play/seek/loop change, which is what keeps them aligned.
      data-start={t?.source ? `${t.startedAt.toFixed(4)}@${t.startOffset.toFixed(4)}` : ''}
      // This stem's own position (streamed stems each have their own).
      data-time={t && engine ? engine.stemTime(t).toFixed(3) : ''}
      // The rate it really plays at: its buffer source's, else its media element's.
      data-rate={t?.source?.playbackRate.value ?? t?.media?.playbackRate ?? ''}
    >
      <span class="stem-name">
        {s.label}
        {mode === 'mix' && number <= 9 && <span class="sr-only"> (shortcut {number})</span>}
      </span>
      <Waveform
        engine={engine}
        peaks={s.peaks}
        duration={s.duration ?? duration}
        label={`Waveform of ${s.label}`}
        dim={t ? effectiveGain(t, anySolo) === 0 : false}
        snap={snap}
      />
      <span class="stem-controls">
        {mode === 'ab' ? (
          <label class="inline">
            <input
              type="radio"
              name="ab"
              checked={heard === s.name}
              disabled={!ready}
              onChange={() => {
                for (const x of engine?.tracks ?? []) engine?.setTrack(x.name, { soloed: x.name === s.name });
              }}
            />{' '}
            Listen
          </label>
        ) : (
          <>
            <button
              type="button"
              aria-pressed={t?.muted ?? false}
              aria-label={`Mute ${s.label}`}
              disabled={!ready}
              onClick={() => engine?.setTrack(s.name, { muted: !t?.muted })}
            >
              M
            </button>
            <button
              type="button"
              aria-pressed={t?.soloed ?? false}
              aria-label={`Solo ${s.label}`}
              disabled={!ready}
              onClick={() => engine?.setTrack(s.name, { soloed: !t?.soloed })}
            >
              S
            </button>
            <input
              type="range"
              aria-label={`Volume ${s.label}`}
              min={0}
              max={1}
              step={0.01}
              value={t?.volume ?? 1}
              disabled={!ready}
              onInput={(e) => engine?.setTrack(s.name, { volume: Number((e.target as HTMLInputElement).value) })}
            />
          </>
        )}
        <a href={s.url} download={s.fileName} aria-label={`Download ${s.label}`}>
          Download
        </a>
      </span>
    </li>
  );
}
