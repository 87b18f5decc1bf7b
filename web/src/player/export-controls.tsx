import { useState } from 'preact/hooks';
import type { Multitrack } from './multitrack.ts';
import { effectiveGain } from './track.ts';

const FORMATS = ['WAV', 'MP3', 'FLAC'] as const;

/**
 * Export a stem, or the mix as heard (volumes, mute, solo), at the tempo and pitch set, as WAV, MP3
 * or FLAC. The server renders it from the stored stems with ffmpeg (Rubber Band for tempo and
 * pitch) and names the file after what it holds: "song - vocals - 75% - +2st.mp3".
 */
export function ExportControls({ engine, jobId }: { engine: Multitrack | null; jobId: string }) {
  const [what, setWhat] = useState('mix');
  const [format, setFormat] = useState<(typeof FORMATS)[number]>('WAV');
  const tracks = engine?.tracks ?? [];
  const anySolo = tracks.some((t) => t.soloed);
  const gains = tracks.map((t) => `${t.name}:${Number(effectiveGain(t, anySolo).toFixed(4))}`).join(',');
  const query = new URLSearchParams({
    what,
    format,
    tempo: String(engine?.tempo ?? 1),
    pitch: String(engine?.pitch ?? 0),
  });
  if (what === 'mix') query.set('gains', gains);
  const silent = what === 'mix' && tracks.every((t) => effectiveGain(t, anySolo) === 0);
  return (
    <div class="export">
      <label class="inline">
        Export
        <select
          aria-label="What to export"
          value={what}
          onChange={(e) => setWhat((e.target as HTMLSelectElement).value)}
        >
          <option value="mix">the mix as heard</option>
          {tracks.map((t) => (
            <option key={t.name} value={t.name}>
              {t.name}
            </option>
          ))}
        </select>
      </label>
      <label class="inline">
        as
        <select
          aria-label="Export format"
          value={format}
          onChange={(e) => setFormat((e.target as HTMLSelectElement).value as typeof format)}
        >
          {FORMATS.map((f) => (
            <option key={f} value={f}>
              {f}
            </option>
          ))}
        </select>
      </label>
      {silent || !engine ? (
        <button type="button" disabled>
          Download export
        </button>
      ) : (
        <a
          class="button"
          href={`/dashboard/api/jobs/${encodeURIComponent(jobId)}/export?${query}`}
          download
          data-external
        >
          Download export
        </a>
      )}
      <span class="muted">
        at {Math.round((engine?.tempo ?? 1) * 100)} % and {engine?.pitch ?? 0} semitones; the stem links below are the
        originals.
      </span>
    </div>
  );
}
