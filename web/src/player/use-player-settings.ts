import { useEffect, useRef, useState } from 'preact/hooks';
import type { PlayerSettingsBody, StoredPlayerSettingsBody } from '../../../src/contract/practice.ts';
import { api } from '../api.ts';
import type { Snap } from './beats.ts';
import type { Multitrack } from './multitrack.ts';

/** The player's own practice settings (the transport holds the rest). */
export interface Practice {
  click: boolean;
  clickVolume: number;
  countIn: boolean;
  snap: Snap;
}

export const DEFAULT_PRACTICE: Practice = { click: false, clickVolume: 0.6, countIn: false, snap: 'beat' };

/** A change is saved this long after the last one (a slider dragged saves once). */
const SAVE_AFTER_MS = 600;

function settingsOf(engine: Multitrack, p: Practice): PlayerSettingsBody {
  return {
    tempo: engine.tempo,
    pitch: engine.pitch,
    tracks: Object.fromEntries(
      engine.tracks.map((t) => [t.name, { volume: t.volume, muted: t.muted, soloed: t.soloed }]),
    ),
    loop: { ...engine.loop },
    click: { enabled: p.click, volume: p.clickVolume, countIn: p.countIn },
    snap: p.snap,
  };
}

/**
 * The player's settings of this job, kept on the server per account (`/jobs/:id/player-settings`):
 * read once the transport exists and laid on it, then saved a moment after each change, so a
 * reload, or another device, finds tempo, pitch, mute, solo, volumes, loop and click as they were.
 * Returns where saving stands ('loading' until read).
 */
export function usePlayerSettings(
  jobId: string | undefined,
  engine: Multitrack | null,
  practice: Practice,
  setPractice: (p: Practice) => void,
): 'loading' | 'saving' | 'saved' | 'failed' {
  const [state, setState] = useState<'loading' | 'saving' | 'saved' | 'failed'>('loading');
  const saved = useRef('');
  const path = jobId ? `/jobs/${encodeURIComponent(jobId)}/player-settings` : null;

  useEffect(() => {
    if (!engine || !path) return;
    let live = true;
    api<StoredPlayerSettingsBody>('GET', path)
      .then(async ({ settings: s }) => {
        if (!live) return;
        if (s) {
          for (const [name, t] of Object.entries(s.tracks)) engine.setTrack(name, t);
          if (s.loop.end > s.loop.start) engine.setLoop(s.loop);
          setPractice({ click: s.click.enabled, clickVolume: s.click.volume, countIn: s.click.countIn, snap: s.snap });
          if (s.tempo !== 1 || s.pitch !== 0) await engine.setTempoPitch({ tempo: s.tempo, pitch: s.pitch });
        }
        saved.current = JSON.stringify(settingsOf(engine, s ? { ...DEFAULT_PRACTICE, ...practiceOf(s) } : practice));
        if (live) setState('saved');
      })
      .catch(() => live && setState('failed'));
    return () => {
      live = false;
    };
  }, [engine, path]);

  const now = engine && state !== 'loading' ? JSON.stringify(settingsOf(engine, practice)) : '';
  useEffect(() => {
    if (!now || !path || now === saved.current) return;
    setState('saving');
    const timer = setTimeout(() => {
      api('PUT', path, JSON.parse(now))
        .then(() => {
          saved.current = now;
          setState('saved');
        })
        .catch(() => setState('failed'));
    }, SAVE_AFTER_MS);
    return () => clearTimeout(timer);
  }, [now]);
  return state;
}

function practiceOf(s: PlayerSettingsBody): Practice {
  return { click: s.click.enabled, clickVolume: s.click.volume, countIn: s.click.countIn, snap: s.snap };
}
