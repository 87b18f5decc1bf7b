import { useEffect, useRef } from 'preact/hooks';
import type { Multitrack } from './multitrack.ts';

interface Props {
  engine: Multitrack | null;
  peaks: number[] | undefined;
  duration: number;
  label: string;
  dim?: boolean;
  /** Moves a time to where a loop dragged on the waveform snaps (beats, bars, or as it is). */
  snap: (seconds: number) => number;
}

/** A press that moves less than this is a click (seek); more drags a loop. */
const DRAG_PX = 6;

/**
 * Draws the server's precomputed peaks (1000 max-abs values) on a canvas: no stem is decoded for its
 * picture. The played part, the loop region and the playhead follow the shared transport. A click
 * seeks; a drag sets an A-B loop (snapped to beats or bars) and turns it on.
 */
export function Waveform({ engine, peaks, duration, label, dim, snap }: Props) {
  const canvas = useRef<HTMLCanvasElement>(null);
  /** The loop being dragged (seconds), drawn over the waveform until the pointer is let go. */
  const drag = useRef<{ x0: number; from: number; to: number; dragging: boolean } | null>(null);
  const redraw = useRef<() => void>(() => {});

  useEffect(() => {
    const el = canvas.current;
    if (!el) return;
    let frame = 0;
    const draw = () => {
      const dpr = devicePixelRatio || 1;
      const w = Math.max(1, Math.round(el.clientWidth * dpr));
      const h = Math.max(1, Math.round(el.clientHeight * dpr));
      if (el.width !== w || el.height !== h) {
        el.width = w;
        el.height = h;
      }
      const g = el.getContext('2d');
      if (!g) return;
      const styles = getComputedStyle(el);
      g.clearRect(0, 0, w, h);
      const total = engine?.duration || duration || 1;
      const played = engine ? (engine.position / total) * w : 0;
      const d = drag.current?.dragging ? drag.current : null;
      const region = d
        ? { start: Math.min(d.from, d.to), end: Math.max(d.from, d.to) }
        : engine?.loop.enabled
          ? engine.loop
          : null;
      if (region) {
        g.fillStyle = styles.getPropertyValue('--loop').trim() || '#fde68a';
        const x0 = (region.start / total) * w;
        g.fillRect(x0, 0, (region.end / total) * w - x0, h);
      }
      const list = peaks ?? [];
      const bar = Math.max(1, Math.floor(dpr));
      const mid = h / 2;
      const past = styles.getPropertyValue('--wave-played').trim() || '#2563eb';
      const future = styles.getPropertyValue('--wave').trim() || '#94a3b8';
      for (let x = 0; x < w; x += bar + 1) {
        const from = Math.floor((x / w) * list.length);
        const to = Math.max(from + 1, Math.floor(((x + bar + 1) / w) * list.length));
        let peak = 0;
        for (let i = from; i < to && i < list.length; i++) peak = Math.max(peak, list[i]!);
        const half = Math.max(1, peak * (mid - 1));
        g.fillStyle = x < played ? past : future;
        g.fillRect(x, mid - half, bar, half * 2);
      }
      if (engine) {
        g.fillStyle = styles.getPropertyValue('--playhead').trim() || '#111827';
        g.fillRect(Math.min(w - 2, played), 0, 2 * dpr, h);
      }
      if (engine?.playing) frame = requestAnimationFrame(draw);
    };
    draw();
    redraw.current = draw;
    const off = engine?.onChange(() => {
      cancelAnimationFrame(frame);
      draw();
    });
    const resize = new ResizeObserver(() => draw());
    resize.observe(el);
    return () => {
      cancelAnimationFrame(frame);
      off?.();
      resize.disconnect();
    };
  }, [engine, peaks, duration]);

  const timeAt = (e: PointerEvent) => {
    const rect = canvas.current!.getBoundingClientRect();
    return Math.min(1, Math.max(0, (e.clientX - rect.left) / rect.width)) * (engine?.duration ?? 0);
  };
  const down = (e: PointerEvent) => {
    if (!engine || !canvas.current || e.button !== 0) return;
    canvas.current.setPointerCapture(e.pointerId);
    const t = timeAt(e);
    drag.current = { x0: e.clientX, from: snap(t), to: snap(t), dragging: false };
  };
  const move = (e: PointerEvent) => {
    const d = drag.current;
    if (!d) return;
    d.dragging ||= Math.abs(e.clientX - d.x0) > DRAG_PX;
    if (d.dragging) {
      d.to = snap(timeAt(e));
      redraw.current();
    }
  };
  const up = (e: PointerEvent) => {
    const d = drag.current;
    drag.current = null;
    if (!d || !engine) return;
    if (!d.dragging) {
      engine.seek(timeAt(e));
      return;
    }
    const start = Math.min(d.from, d.to);
    const end = Math.max(d.from, d.to);
    if (end - start > 0.05) engine.setLoop({ enabled: true, start, end });
    else redraw.current();
  };

  return (
    <canvas
      ref={canvas}
      class={dim ? 'wave dim' : 'wave'}
      role="img"
      aria-label={label}
      onPointerDown={down}
      onPointerMove={move}
      onPointerUp={up}
      onPointerCancel={() => {
        drag.current = null;
        redraw.current();
      }}
    />
  );
}
