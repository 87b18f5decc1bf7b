import { useEffect } from 'preact/hooks';
import type { JobSummaryBody, JobsPageBody } from '../../../src/contract/dashboard.ts';
import { bpmKey, dateTime, duration, KIND_LABEL, STATUS_LABEL } from '../format.ts';
import { navigate } from '../router.ts';
import { useData } from '../use-data.ts';
import { Pager } from './pager.tsx';

const PAGE = 20;
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

export function StatusBadge({ job }: { job: Pick<JobSummaryBody, 'status' | 'progress'> }) {
  return (
    <span class="status">
      <span class={`badge status-${job.status.toLowerCase()}`}>{STATUS_LABEL[job.status] ?? job.status}</span>
      {isRunning(job.status) && (
        <progress max={100} value={job.progress} aria-label={`Progress ${job.progress}%`}>
          {job.progress}%
        </progress>
      )}
      {isRunning(job.status) && <span class="muted"> {job.progress}%</span>}
    </span>
  );
}

export function Jobs({ url }: { url: URL }) {
  const status = url.searchParams.get('status') ?? '';
  const kind = url.searchParams.get('kind') ?? '';
  const offset = Number(url.searchParams.get('offset') ?? 0) || 0;
  const query = new URLSearchParams({ limit: String(PAGE), offset: String(offset) });
  if (status) query.set('status', status);
  if (kind) query.set('kind', kind);
  const { data, error, reload } = useData<JobsPageBody>(`/jobs?${query}`);
  usePolling(data?.jobs.some((j) => isRunning(j.status)) ?? false, reload);

  const setFilter = (name: string, value: string) => {
    const next = new URLSearchParams(url.search);
    if (value) next.set(name, value);
    else next.delete(name);
    if (name !== 'offset') next.delete('offset');
    navigate(`/jobs${next.size ? `?${next}` : ''}`, true);
  };

  return (
    <>
      <h1>Jobs</h1>
      <div class="toolbar">
        <label class="inline">
          Status{' '}
          <select value={status} onChange={(e) => setFilter('status', (e.target as HTMLSelectElement).value)}>
            <option value="">All</option>
            {Object.entries(STATUS_LABEL).map(([v, l]) => (
              <option key={v} value={v}>
                {l}
              </option>
            ))}
          </select>
        </label>
        <label class="inline">
          Kind{' '}
          <select value={kind} onChange={(e) => setFilter('kind', (e.target as HTMLSelectElement).value)}>
            <option value="">All</option>
            {Object.entries(KIND_LABEL).map(([v, l]) => (
              <option key={v} value={v}>
                {l}
              </option>
            ))}
          </select>
        </label>
        <a class="button primary" href="/new">
          New job
        </a>
      </div>
      {error && (
        <p class="error" role="alert">
          {error.message}
        </p>
      )}
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Title</th>
              <th scope="col">Kind</th>
              <th scope="col">Status</th>
              <th scope="col" class="num">
                Duration
              </th>
              <th scope="col" class="num">
                Credits
              </th>
              <th scope="col">BPM / key</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {data?.jobs.map((j) => (
              <tr key={j.id} data-job={j.id} data-status={j.status}>
                <td>
                  <a href={`/jobs/${encodeURIComponent(j.id)}`}>{j.title}</a>
                </td>
                <td>{KIND_LABEL[j.kind] ?? j.kind}</td>
                <td>
                  <StatusBadge job={j} />
                </td>
                <td class="num">{duration(j.durationSeconds)}</td>
                <td class="num">{j.creditsCharged ?? '—'}</td>
                <td>{bpmKey(j.bpm, j.key)}</td>
                <td>{dateTime(j.createdAt)}</td>
              </tr>
            ))}
            {data?.jobs.length === 0 && (
              <tr>
                <td colSpan={7}>
                  No jobs{status || kind ? ' match these filters' : ' yet'}. <a href="/new">Create one</a>.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      {data && (
        <Pager
          pagination={data.pagination}
          onOffset={(o) => setFilter('offset', o ? String(o) : '')}
          label="Job pages"
        />
      )}
    </>
  );
}
