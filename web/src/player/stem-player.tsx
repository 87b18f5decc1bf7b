import { useEffect, useRef, useState } from 'preact/hooks';
import { clock } from '../format.ts';
import { messageOf } from '../api.ts';
import { loadStems } from './load-stems.ts';
import { Multitrack } from './multitrack.ts';
import { effectiveGain } from './track.ts';
import { TempoPitch } from './tempo-pitch.tsx';
import { Waveform } from './waveform.tsx';
import { encodeWav } from './wav.ts';

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
  title: string;
}

/**
 * The multitrack player: one row per stem (waveform from server peaks, mute, solo, volume, download)
 * on one transport (play/pause, seek, loop). Keyboard: Space plays/pauses, arrows seek 5 s, Home goes
 * to the start, L toggles the loop; every control is also a native button or slider.
 */
export function StemPlayer({ stems, mode = 'mix', title }: Props) {
  const [engine, setEngine] = useState<Multitrack | null>(null);
  const [loaded, setLoaded] = useState(0);
  const [error, setError] = useState('');
  const [, setTick] = useState(0);
  const [mixing, setMixing] = useState(false);
  const pressedAt = useRef(0);
  const [loadMs, setLoadMs] = useState<number | null>(null);
  const [latencyMs, setLatencyMs] = useState<number | null>(null);
  const urls = stems.map((s) => s.url).join('\n');

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

  const toggle = () => {
    if (!engine) return;
    if (!engine.playing) pressedAt.current = performance.now();
    engine.toggle();
  };

  const onKey = (e: KeyboardEvent) => {
    const target = e.target as HTMLElement;
    // Native controls keep their own keys (a slider's arrows, a button's Space).
    if (target.closest('input, button, a, select, textarea')) return;
    if (!engine) return;
    if (e.key === ' ' || e.key === 'k') engine.toggle();
    else if (e.key === 'ArrowLeft') engine.seek(engine.position - 5);
    else if (e.key === 'ArrowRight') engine.seek(engine.position + 5);
    else if (e.key === 'Home') engine.seek(0);
    else if (e.key === 'l') engine.setLoop({ enabled: !engine.loop.enabled });
    else return;
    e.preventDefault();
  };

  const downloadMix = async () => {
    if (!engine) return;
    setMixing(true);
    try {
      const blob = encodeWav(await engine.renderMix());
      const a = document.createElement('a');
      a.href = URL.createObjectURL(blob);
      a.download = `${title.replace(/\.[^.]+$/, '') || 'mix'}-mix.wav`;
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(a.href), 60_000);
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setMixing(false);
    }
  };

  const playing = engine?.playing ?? false;
  const anySolo = engine?.tracks.some((t) => t.soloed) ?? false;
  const heard = engine?.tracks.find((t) => t.soloed)?.name;

  return (
    <section
      class="player"
      aria-label={mode === 'ab' ? 'A/B player' : 'Stem player'}
      // biome-ignore lint/a11y/noNoninteractiveTabindex: the player region takes the transport's keyboard shortcuts
      tabIndex={0}
      onKeyDown={onKey}
      data-ready={decoded ? 'true' : 'false'}
      data-load-ms={loadMs ?? ''}
      data-play-latency-ms={latencyMs ?? ''}
      // What plays ('media' until decoded, then 'buffers'), the largest spread between the streamed
      // stems since the last start or seek, and how often they were re-aligned (bench and tests).
      data-mode={engine?.mode ?? ''}
      data-spread-ms={engine ? (engine.spread * 1000).toFixed(1) : ''}
      data-resyncs={engine?.resyncs ?? 0}
    >
      <div class="transport">
        <button type="button" class="primary" onClick={toggle} aria-pressed={playing}>
          {playing ? 'Pause' : 'Play'}
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
        <button type="button" disabled={!ready} onClick={() => engine?.setLoop({ start: engine.position })}>
          Loop start {engine ? clock(engine.loop.start) : ''}
        </button>
        <button type="button" disabled={!ready} onClick={() => engine?.setLoop({ end: engine.position })}>
          Loop end {engine ? clock(engine.loop.end) : ''}
        </button>
        {mode === 'mix' && (
          <button type="button" disabled={!decoded || mixing} onClick={downloadMix}>
            {mixing ? 'Rendering…' : 'Download mix (WAV)'}
          </button>
        )}
      </div>
      {mode === 'mix' && <TempoPitch engine={engine} disabled={!ready} />}
      {mode === 'mix' && engine && (engine.tempo !== 1 || engine.pitch !== 0) && (
        <p class="muted">
          The downloaded mix follows the tempo and pitch set here; the stem downloads are the originals.
        </p>
      )}
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
        {stems.map((s) => {
          const t = engine?.tracks.find((x) => x.name === s.name);
          const gain = t ? t.gain.gain.value : 1;
          return (
            <li
              class="stem"
              key={s.name}
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
              <span class="stem-name">{s.label}</span>
              <Waveform
                engine={engine}
                peaks={s.peaks}
                duration={s.duration ?? duration}
                label={`Waveform of ${s.label}`}
                dim={t ? effectiveGain(t, anySolo) === 0 : false}
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
                      onInput={(e) =>
                        engine?.setTrack(s.name, { volume: Number((e.target as HTMLInputElement).value) })
                      }
                    />
                  </>
                )}
                <a href={s.url} download={s.fileName} aria-label={`Download ${s.label}`}>
                  Download
                </a>
              </span>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
