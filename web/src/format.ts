import { JOB_KIND_CATALOG } from '../../src/domain/job-kinds.ts';

/** 75 -> "1:15"; with tenths for the player's clock. */
export function clock(seconds: number, tenths = false): string {
  const s = Math.max(0, seconds);
  const m = Math.floor(s / 60);
  const rest = s - m * 60;
  const whole = Math.floor(rest);
  const base = `${m}:${String(whole).padStart(2, '0')}`;
  return tenths ? `${base}.${Math.floor((rest - whole) * 10)}` : base;
}

export function duration(seconds: number | null | undefined): string {
  return seconds == null ? '—' : clock(seconds);
}

export function dateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

export function bytes(n: number | undefined): string {
  if (n == null) return '';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 ** 3) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  return `${(n / 1024 ** 3).toFixed(1)} GB`;
}

/** "118 BPM (82 % sure) · B major (64 % sure)": each value with how sure the analysis is of it. */
export function bpmKey(
  bpm: number | null,
  key: string | null,
  confidence: { tempo: number | null; key: number | null } = { tempo: null, key: null },
): string {
  const sure = (c: number | null) => (c == null ? '' : ` (${Math.round(c * 100)} % sure)`);
  const parts = [
    bpm == null ? null : `${Math.round(bpm)} BPM${sure(confidence.tempo)}`,
    key && `${key}${sure(confidence.key)}`,
  ];
  return parts.filter(Boolean).join(' · ') || '—';
}

export const STATUS_LABEL: Record<string, string> = {
  PENDING: 'Pending',
  PROCESSING: 'Processing',
  COMPLETED: 'Completed',
  FAILED: 'Failed',
  EXPIRED: 'Expired',
};
/** Each job kind's label, from the server's job-kind catalog. */
export const KIND_LABEL: Record<string, string> = Object.fromEntries(
  Object.entries(JOB_KIND_CATALOG).map(([kind, spec]) => [kind, spec.label]),
);
