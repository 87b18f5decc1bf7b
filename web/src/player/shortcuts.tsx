import { useEffect, useRef } from 'preact/hooks';

/** The player's keyboard shortcuts, as the help overlay lists them. */
export const SHORTCUTS: [string, string][] = [
  ['Space or K', 'Play or pause'],
  ['← / →', 'Back or forward 5 seconds'],
  ['Home', 'Back to the start'],
  ['A / B', 'Loop start / loop end at the playhead (snapped when snapping is on)'],
  ['L', 'Loop on or off'],
  ['X', 'Clear the loop'],
  ['+ / −', 'Tempo up or down 5 %'],
  ['] / [', 'Pitch up or down a semitone'],
  ['C', 'Click on or off'],
  ['1 … 9', 'Solo stem 1 … 9'],
  ['Shift + 1 … 9', 'Mute stem 1 … 9'],
  ['?', 'This list'],
];

/** What each shortcut does; the player fills it in. */
export interface ShortcutActions {
  toggle(): void;
  seekBy(seconds: number): void;
  home(): void;
  loopStart(): void;
  loopEnd(): void;
  loopToggle(): void;
  loopClear(): void;
  tempoBy(step: number): void;
  pitchBy(step: number): void;
  clickToggle(): void;
  solo(index: number): void;
  mute(index: number): void;
  help(): void;
}

/**
 * The player's keys, anywhere on the job page except where a key is a field's own (text, sliders,
 * selects) or a button's Space; Ctrl, Alt and Meta combinations are the browser's.
 */
export function useShortcuts(actions: ShortcutActions | null): void {
  const current = useRef(actions);
  current.current = actions;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const a = current.current;
      if (!a || e.ctrlKey || e.altKey || e.metaKey || e.defaultPrevented) return;
      const target = e.target as HTMLElement;
      if (target.closest('input, select, textarea, dialog, [contenteditable]')) return;
      if ((e.key === ' ' || e.key === 'Enter') && target.closest('button, a, summary')) return;
      const digit = /^Digit([1-9])$/.exec(e.code)?.[1];
      if (digit) {
        if (e.shiftKey) a.mute(Number(digit) - 1);
        else a.solo(Number(digit) - 1);
      } else {
        const run: Record<string, () => void> = {
          ' ': a.toggle,
          k: a.toggle,
          ArrowLeft: () => a.seekBy(-5),
          ArrowRight: () => a.seekBy(5),
          Home: a.home,
          a: a.loopStart,
          b: a.loopEnd,
          l: a.loopToggle,
          x: a.loopClear,
          '+': () => a.tempoBy(0.05),
          '=': () => a.tempoBy(0.05),
          '-': () => a.tempoBy(-0.05),
          ']': () => a.pitchBy(1),
          '[': () => a.pitchBy(-1),
          c: a.clickToggle,
          '?': a.help,
        };
        const action = run[e.key.length === 1 ? e.key.toLowerCase() : e.key] ?? run[e.key];
        if (!action) return;
        action();
      }
      e.preventDefault();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
}

/** The help overlay: a modal dialog (Escape or Close closes it, focus returns where it was). */
export function ShortcutHelp({ open, onClose }: { open: boolean; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = dialog.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return (
    <dialog ref={dialog} class="shortcut-help" aria-labelledby="shortcut-title" onClose={onClose}>
      <h2 id="shortcut-title">Keyboard shortcuts</h2>
      <table>
        <tbody>
          {SHORTCUTS.map(([keys, what]) => (
            <tr key={keys}>
              <th scope="row">
                <kbd>{keys}</kbd>
              </th>
              <td>{what}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <button type="button" class="primary" onClick={() => dialog.current?.close()}>
        Close
      </button>
    </dialog>
  );
}
