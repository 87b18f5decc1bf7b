import type { Multitrack } from './multitrack.ts';

const percent = (tempo: number) => `${Math.round(tempo * 100)} %`;
const semitones = (pitch: number) =>
  `${pitch > 0 ? '+' : pitch < 0 ? '−' : '±'}${Math.abs(pitch)} semitone${Math.abs(pitch) === 1 ? '' : 's'}`;

/**
 * Practice controls: "Tempo" slows or speeds every stem together, keeping the pitch; "Pitch"
 * transposes them, keeping the tempo (the bus in stretch.ts). The downloadable mix follows both.
 */
export function TempoPitch({ engine, disabled }: { engine: Multitrack | null; disabled: boolean }) {
  const tempo = engine?.tempo ?? 1;
  const pitch = engine?.pitch ?? 0;
  return (
    <div class="tempo-pitch" data-tempo={tempo} data-pitch={pitch} data-stretch={engine?.bus.active ? 'on' : 'off'}>
      <label class="inline">
        Tempo
        <input
          type="range"
          min={50}
          max={150}
          step={5}
          value={Math.round(tempo * 100)}
          disabled={disabled}
          aria-valuetext={`${percent(tempo)}, pitch kept`}
          onInput={(e) => void engine?.setTempoPitch({ tempo: Number((e.target as HTMLInputElement).value) / 100 })}
        />
        <output>{percent(tempo)}</output>
      </label>
      <label class="inline">
        Pitch
        <input
          type="range"
          min={-12}
          max={12}
          step={1}
          value={pitch}
          disabled={disabled}
          aria-valuetext={`${semitones(pitch)}, tempo kept`}
          onInput={(e) => void engine?.setTempoPitch({ pitch: Number((e.target as HTMLInputElement).value) })}
        />
        <output>{semitones(pitch)}</output>
      </label>
      <button
        type="button"
        disabled={disabled || (tempo === 1 && pitch === 0)}
        onClick={() => void engine?.setTempoPitch({ tempo: 1, pitch: 0 })}
      >
        Reset tempo and pitch
      </button>
    </div>
  );
}
