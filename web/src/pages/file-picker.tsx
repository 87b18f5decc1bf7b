import { useState } from 'preact/hooks';
import { bytes } from '../format.ts';
import { billedSeconds, type Chosen } from './cost.tsx';

/** The drop zone and the list of files chosen, each with its size, length and why it is not sent. */
export function FilePicker({
  files,
  onPick,
}: {
  files: Chosen[];
  onPick: (list: FileList | null | undefined) => void;
}) {
  const [dragging, setDragging] = useState(false);
  return (
    <>
      <label
        class={dragging ? 'drop dragging' : 'drop'}
        onDragOver={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={(e) => {
          e.preventDefault();
          setDragging(false);
          onPick(e.dataTransfer?.files);
        }}
      >
        <span>Drop audio files here, or choose them (each file becomes its own job)</span>
        <input
          type="file"
          name="file"
          multiple
          accept="audio/*,video/*,.mp3,.wav,.flac,.m4a,.ogg"
          onChange={(e) => onPick((e.target as HTMLInputElement).files)}
        />
      </label>
      {files.length > 0 && (
        <ul class="chosen">
          {files.map((f, i) => (
            <li key={i} class={f.refused ? 'refused' : ''}>
              <span class="file-name">{f.file.name}</span>{' '}
              <span class="muted">
                {bytes(f.file.size)}
                {f.duration !== null ? `, ${billedSeconds(f.duration)} s` : ''}
                {f.checking ? ', checking…' : ''}
              </span>
              {f.refused && <span class="error"> Not sent: {f.refused}.</span>}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
