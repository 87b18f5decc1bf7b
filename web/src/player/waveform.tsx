import { useEffect, useRef } from 'preact/hooks';
import type { Multitrack } from './multitrack.ts';

interface Props {
  engine: Multitrack | null;
  peaks: number[] | undefined;
  duration: number;
  label: string;
  dim?: boolean;
}

/**
 * Draws the server's precomputed peaks (1000 max-abs values) on a canvas: no stem is decoded for its
 * picture. The played part, the loop region and the playhead follow the shared transport.
 */
export function Waveform({ engine, peaks, duration, label, dim }: Props) {
  const canvas = useRef<HTMLCanvasElement>(null);

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
      if (engine?.loop.enabled) {
        g.fillStyle = styles.getPropertyValue('--loop').trim() || '#fde68a';
        const x0 = (engine.loop.start / total) * w;
        g.fillRect(x0, 0, (engine.loop.end / total) * w - x0, h);
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

  const seek = (e: MouseEvent) => {
    if (!engine || !canvas.current) return;
    const rect = canvas.current.getBoundingClientRect();
    engine.seek(((e.clientX - rect.left) / rect.width) * engine.duration);
  };

  return <canvas ref={canvas} class={dim ? 'wave dim' : 'wave'} role="img" aria-label={label} onClick={seek} />;
}
