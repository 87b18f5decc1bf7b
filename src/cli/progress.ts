/**
 * A progress display for long commands: a redrawn bar with percentage and ETA on a terminal,
 * plain lines (one per 10 %) when the output is a pipe or a file.
 */
export class ProgressBar {
  private readonly started = Date.now();
  private lastPrinted = -1;
  private lastDraw = 0;

  constructor(
    private readonly label: string,
    private readonly out: NodeJS.WriteStream = process.stderr,
    private readonly width = 30,
  ) {}

  /** Reports progress as a fraction in [0, 1]. */
  update(fraction: number): void {
    const f = Math.min(1, Math.max(0, fraction));
    const pct = Math.floor(f * 100);
    if (this.out.isTTY) {
      const now = Date.now();
      if (now - this.lastDraw < 100 && f < 1) return;
      this.lastDraw = now;
      const filled = Math.round(f * this.width);
      const bar = '#'.repeat(filled) + '-'.repeat(this.width - filled);
      this.out.write(`\r${this.label} [${bar}] ${String(pct).padStart(3)}% ${this.eta(f)}\x1b[K`);
    } else {
      const step = Math.floor(pct / 10) * 10;
      if (step <= this.lastPrinted) return;
      this.lastPrinted = step;
      this.out.write(`${this.label}: ${step}% ${this.eta(f)}\n`);
    }
  }

  /** Finishes the bar with a closing message (elapsed time appended). */
  done(message = 'done'): void {
    const secs = ((Date.now() - this.started) / 1000).toFixed(1);
    if (this.out.isTTY) this.out.write(`\r${this.label} ${message} in ${secs}s\x1b[K\n`);
    else this.out.write(`${this.label}: ${message} in ${secs}s\n`);
  }

  private eta(f: number): string {
    if (f <= 0) return 'ETA --:--';
    if (f >= 1) return 'ETA 0:00';
    const elapsed = (Date.now() - this.started) / 1000;
    return `ETA ${formatDuration((elapsed / f) * (1 - f))}`;
  }
}

export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const r = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${r}` : `${m}:${r}`;
}
