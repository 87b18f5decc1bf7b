import { useEffect } from 'preact/hooks';
import type { JobSummaryBody } from '../../../src/contract/dashboard.ts';
import { clock, STATUS_LABEL } from '../format.ts';
import { PHASE_WORDS } from '../words.ts';

/** Poll interval while a listed job runs: well inside the dashboard's per-session rate limit. */
export const POLL_MS = 2500;

export function isRunning(status: string): boolean {
  return status === 'PENDING' || status === 'PROCESSING';
}

/** Polls `reload` every POLL_MS while `active`, pausing while the tab is hidden. */
export function usePolling(active: boolean, reload: () => Promise<void>): void {
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') void reload();
    }, POLL_MS);
    return () => clearInterval(timer);
  }, [active, reload]);
}

type Progressing = Pick<JobSummaryBody, 'status' | 'progress' | 'phase' | 'queuePosition' | 'secondsLeft'>;

/** The status badge; a cancelled job (FAILED, phase cancelled) says so. */
export function StatusBadge({ job }: { job: Pick<JobSummaryBody, 'status' | 'phase'> }) {
  const label = job.phase === 'cancelled' ? 'Cancelled' : (STATUS_LABEL[job.status] ?? job.status);
  return (
    <span class={`badge status-${job.phase === 'cancelled' ? 'cancelled' : job.status.toLowerCase()}`}>{label}</span>
  );
}

/**
 * Where a job stands, in words: its status; while it runs, what it is doing, how far, its place in
 * the queue and about how long is left.
 */
export function JobProgress({ job }: { job: Progressing }) {
  const running = isRunning(job.status);
  return (
    <span class="status">
      <StatusBadge job={job} />
      {running && (
        <>
          <span class="phase" data-phase={job.phase}>
            {PHASE_WORDS[job.phase]}
          </span>
          {job.status === 'PROCESSING' && (
            <>
              <progress max={100} value={job.progress} aria-label={`Progress ${job.progress}%`}>
                {job.progress}%
              </progress>
              <span class="muted">{job.progress}%</span>
            </>
          )}
          {job.queuePosition !== null && <span class="muted queue">{ordinal(job.queuePosition)} in the queue</span>}
          {job.secondsLeft !== null && <span class="muted eta">about {clock(job.secondsLeft)} left</span>}
        </>
      )}
    </span>
  );
}

function ordinal(n: number): string {
  const tens = n % 100;
  const suffix =
    tens >= 11 && tens <= 13 ? 'th' : (({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[n % 10] ?? 'th');
  return `${n}${suffix}`;
}
