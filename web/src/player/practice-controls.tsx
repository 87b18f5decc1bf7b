import type { Snap } from './beats.ts';
import type { Practice } from './use-player-settings.ts';

/**
 * Click, count-in, click volume and loop snapping, beside the transport. Without beats (an older
 * job, or music without a steady pulse) they are off and say why.
 */
export function PracticeControls({
  practice,
  set,
  noBeats,
  disabled,
  onHelp,
}: {
  practice: Practice;
  set: (p: Practice) => void;
  /** Why there are no beats to click or snap to; null when there are. */
  noBeats: string | null;
  disabled: boolean;
  onHelp: () => void;
}) {
  const off = disabled || noBeats !== null;
  return (
    <div class="practice" data-beats={noBeats ? 'none' : 'yes'}>
      <label class="inline">
        <input
          type="checkbox"
          checked={practice.click && !noBeats}
          disabled={off}
          onChange={(e) => set({ ...practice, click: (e.target as HTMLInputElement).checked })}
        />{' '}
        Click
      </label>
      <label class="inline">
        Click volume
        <input
          type="range"
          min={0}
          max={1}
          step={0.05}
          value={practice.clickVolume}
          disabled={off}
          onInput={(e) => set({ ...practice, clickVolume: Number((e.target as HTMLInputElement).value) })}
        />
      </label>
      <label class="inline">
        <input
          type="checkbox"
          checked={practice.countIn && !noBeats}
          disabled={off}
          onChange={(e) => set({ ...practice, countIn: (e.target as HTMLInputElement).checked })}
        />{' '}
        Count-in (one bar)
      </label>
      <label class="inline">
        Loop snaps to
        <select
          value={noBeats ? 'off' : practice.snap}
          disabled={off}
          onChange={(e) => set({ ...practice, snap: (e.target as HTMLSelectElement).value as Snap })}
        >
          <option value="beat">beats</option>
          <option value="bar">bars</option>
          <option value="off">nothing (free)</option>
        </select>
      </label>
      <button type="button" onClick={onHelp} aria-keyshortcuts="Shift+Slash">
        Keyboard shortcuts (?)
      </button>
      {noBeats && <p class="muted no-beats">Click, count-in and snapping are off: {noBeats}</p>}
    </div>
  );
}
