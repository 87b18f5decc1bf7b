import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { JobAnalysisBody } from '../../../src/contract/practice.ts';
import { clock } from '../format.ts';
import { messageOf } from '../api.ts';
import { beatGrid, snapTime } from './beats.ts';
import { ChordLane } from './chord-lane.tsx';
import { ClickTrack } from './click.ts';
import { ExportControls } from './export-controls.tsx';
import { loadStems } from './load-stems.ts';
import { Multitrack } from './multitrack.ts';
import { PracticeControls } from './practice-controls.tsx';
import { ShortcutHelp, useShortcuts } from './shortcuts.tsx';
import { StemRow } from './stem-row.tsx';
import { TempoPitch } from './tempo-pitch.tsx';
import { DEFAULT_PRACTICE, usePlayerSettings } from './use-player-settings.ts';

export interface Stem {
  name: string;
  label: string;
  url: string;
  fileName: string;
  peaks?: number[];
  duration?: number;
}

interface Props {
  stems: Stem[];
  /** 'ab': exactly one stem is heard at a time (denoise original vs cleaned). */
  mode?: 'mix' | 'ab';
  /** The job (its settings are saved per job); the beats and chords of its analysis, when it has one. */
  jobId?: string;
  analysis?: JobAnalysisBody | null;
}

/**
 * The multitrack player: one row per stem (waveform from server peaks, mute, solo, volume, download)
 * on one transport (play/pause, seek, loop), and for practice a click with a count-in, loops dragged
 * on the waveform that snap to beats or bars, the chords under the waveforms, keyboard shortcuts
 * (`shortcuts.tsx`) and exports at the tempo and pitch set. Its settings are saved per job.
 */
export function StemPlayer({ stems, mode = 'mix', jobId, analysis }: Props) {
  const [engine, setEngine] = useState<Multitrack | null>(null);
  const [loaded, setLoaded] = useState(0);
  const [error, setError] = useState('');
  const [, setTick] = useState(0);
  const pressedAt = useRef(0);
  const [loadMs, setLoadMs] = useState<number | null>(null);
  const [latencyMs, setLatencyMs] = useState<number | null>(null);
  const [practice, setPractice] = useState(DEFAULT_PRACTICE);
  const [help, setHelp] = useState(false);
  const [counting, setCounting] = useState<number | null>(null);
  const [click, setClick] = useState<ClickTrack | null>(null);
  const urls = stems.map((s) => s.url).join('\n');
  const grid = useMemo(() => beatGrid(analysis), [analysis]);
  const noBeats = typeof grid === 'string' ? grid : null;

  useEffect(() => {
    // Stems are 44.1 kHz (HTDemucs' rate): a context at that rate decodes without resampling them;
    // 'playback' trades output latency for fewer glitches on a busy machine.
    const ctx = new AudioContext({ sampleRate: 44_100, latencyHint: 'playback' });
    const abort = new AbortController();
    const made = new Multitrack(ctx, stems, Math.max(0, ...stems.map((s) => s.duration ?? 0)));
    if (mode === 'ab') made.setTrack(stems[stems.length - 1]!.name, { soloed: true });
    setEngine(made);
    const t0 = performance.now();
    // Decoding starts when the job opens, so that play is sample-accurate and instant once it is
    // done; a play pressed earlier streams meanwhile, and decoding gives way to it (see Multitrack).
    loadStems(ctx, stems, setLoaded, abort.signal, () => made.settled())
      .then((buffers) => {
        made.setBuffers(buffers);
        setLoadMs(Math.round(performance.now() - t0));
      })
      .catch((err) => {
        if (!abort.signal.aborted) setError(messageOf(err));
      });
    return () => {
      abort.abort();
      made.close();
    };
    // The stems of a job do not change while its page is open; URLs identify them.
  }, [urls]);

  useEffect(() => {
    if (!engine || typeof grid === 'string' || mode !== 'mix') return;
    const made = new ClickTrack(engine, grid);
    setClick(made);
    return () => made.close();
  }, [engine, grid]);
  useEffect(() => {
    if (!click) return;
    click.volume = practice.clickVolume;
    if (click.enabled !== practice.click) click.setEnabled(practice.click);
  }, [click, practice.click, practice.clickVolume]);

  const saving = usePlayerSettings(mode === 'mix' ? jobId : undefined, engine, practice, setPractice);

  // Re-render on transport changes, and every frame while playing (clock, slider).
  useEffect(() => {
    if (!engine) return;
    let frame = 0;
    const tick = () => {
      if (pressedAt.current && engine.playing && engine.position > 0.001) {
        setLatencyMs(Math.round(performance.now() - pressedAt.current));
        pressedAt.current = 0;
      }
      setTick((n) => n + 1);
      if (engine.playing) frame = requestAnimationFrame(tick);
    };
    const off = engine.onChange(() => {
      cancelAnimationFrame(frame);
      tick();
    });
    tick();
    return () => {
      off();
      cancelAnimationFrame(frame);
    };
  }, [engine]);

  const decoded = loadMs !== null;
  const ready = engine !== null;
  const duration = engine?.duration ?? 0;
  const position = engine?.position ?? 0;
  const snap = (t: number) => snapTime(t, practice.snap, grid);

  /** Play, after a bar of count-in when it is on; pressed during the count-in, it calls it off. */
  const toggle = () => {
    if (!engine) return;
    if (counting !== null) {
      clearTimeout(counting);
      setCounting(null);
      click?.setEnabled(practice.click);
      return;
    }
    if (engine.playing) return engine.pause();
    pressedAt.current = performance.now();
    if (!click || !practice.countIn || noBeats) return void engine.play();
    const startAt = click.countIn(engine.position);
    if (engine.decoded) {
      void engine.play(startAt);
      return;
    }
    // Streamed stems cannot start at a context time: they start when the count-in ends.
    setCounting(
      window.setTimeout(
        () => {
          setCounting(null);
          void engine.play();
        },
        (startAt - engine.ctx.currentTime) * 1000,
      ),
    );
  };

  const setLoopAt = (edge: 'start' | 'end') => engine?.setLoop({ [edge]: snap(engine.position) });
  useShortcuts(
    engine && mode === 'mix'
      ? {
          toggle,
          seekBy: (s) => engine.seek(engine.position + s),
          home: () => engine.seek(0),
          loopStart: () => setLoopAt('start'),
          loopEnd: () => setLoopAt('end'),
          loopToggle: () => engine.setLoop({ enabled: !engine.loop.enabled }),
          loopClear: () => engine.setLoop({ enabled: false, start: 0, end: engine.duration }),
          tempoBy: (step) => void engine.setTempoPitch({ tempo: Math.round((engine.tempo + step) * 100) / 100 }),
          pitchBy: (step) => void engine.setTempoPitch({ pitch: engine.pitch + step }),
          clickToggle: () => !noBeats && setPractice({ ...practice, click: !practice.click }),
          solo: (i) => {
            const t = engine.tracks[i];
            if (t) engine.setTrack(t.name, { soloed: !t.soloed });
          },
          mute: (i) => {
            const t = engine.tracks[i];
            if (t) engine.setTrack(t.name, { muted: !t.muted });
          },
          help: () => setHelp(true),
        }
      : null,
  );

  const playing = engine?.playing ?? false;

  return (
    <section
      class="player"
      aria-label={mode === 'ab' ? 'A/B player' : 'Stem player'}
      // biome-ignore lint/a11y/noNoninteractiveTabindex: focusing the player takes its keys away from a slider or field
      tabIndex={0}
      data-ready={decoded ? 'true' : 'false'}
      data-load-ms={loadMs ?? ''}
      data-play-latency-ms={latencyMs ?? ''}
      // What plays ('media' until decoded, then 'buffers'), the largest spread between the streamed
      // stems since the last start or seek, and how often they were re-aligned (bench and tests).
      data-mode={engine?.mode ?? ''}
      data-spread-ms={engine ? (engine.spread * 1000).toFixed(1) : ''}
      data-resyncs={engine?.resyncs ?? 0}
      // The click's clicks scheduled so far and the last count-in's, the loop, and the settings' saving.
      data-clicks={click?.clicks ?? 0}
      data-count-in={click?.countedIn ?? 0}
      data-loop={
        engine
          ? `${engine.loop.enabled ? 'on' : 'off'}:${engine.loop.start.toFixed(3)}-${engine.loop.end.toFixed(3)}`
          : ''
      }
      data-settings={saving}
    >
      <div class="transport">
        <button type="button" class="primary" onClick={toggle} aria-pressed={playing || counting !== null}>
          {counting !== null ? 'Counting in… (stop)' : playing ? 'Pause' : 'Play'}
        </button>
        <span class="clock" data-position={position.toFixed(3)}>
          {clock(position, true)} / {clock(duration, true)}
        </span>
        <input
          type="range"
          class="seek"
          aria-label="Position"
          min={0}
          max={duration || 1}
          step={0.1}
          value={position}
          disabled={!ready}
          onInput={(e) => engine?.seek(Number((e.target as HTMLInputElement).value))}
        />
        <label class="inline">
          <input
            type="checkbox"
            checked={engine?.loop.enabled ?? false}
            disabled={!ready}
            onChange={(e) => engine?.setLoop({ enabled: (e.target as HTMLInputElement).checked })}
          />{' '}
          Loop
        </label>
        <button type="button" disabled={!ready} onClick={() => setLoopAt('start')}>
          Loop start {engine ? clock(engine.loop.start) : ''}
        </button>
        <button type="button" disabled={!ready} onClick={() => setLoopAt('end')}>
          Loop end {engine ? clock(engine.loop.end) : ''}
        </button>
      </div>
      {mode === 'mix' && (
        <PracticeControls
          practice={practice}
          set={setPractice}
          noBeats={noBeats}
          disabled={!ready}
          onHelp={() => setHelp(true)}
        />
      )}
      {mode === 'mix' && <TempoPitch engine={engine} disabled={!ready} />}
      {mode === 'mix' && jobId && <ExportControls engine={engine} jobId={jobId} />}
      {!decoded && !error && (
        <p class="muted" aria-live="polite">
          Loading audio… {loaded}/{stems.length} (play streams it meanwhile)
        </p>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <ul class="stems">
        {stems.map((s, i) => (
          <StemRow
            key={s.name}
            stem={s}
            engine={engine}
            mode={mode}
            duration={duration}
            ready={ready}
            snap={snap}
            number={i + 1}
          />
        ))}
        {mode === 'mix' && (
          <li class="chord-row">
            <span class="stem-name">Chords</span>
            <ChordLane
              chords={analysis?.chords ?? null}
              duration={duration}
              position={position}
              why={
                analysis?.chords === null || !analysis
                  ? 'No chords: this job was analysed before chords were.'
                  : 'No chords were found.'
              }
            />
          </li>
        )}
      </ul>
      {mode === 'mix' && <ShortcutHelp open={help} onClose={() => setHelp(false)} />}
    </section>
  );
}
