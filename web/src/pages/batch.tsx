import { useCallback, useEffect, useState } from 'preact/hooks';
import type { JobViewBody } from '../../../src/contract/dashboard.ts';
import { api } from '../api.ts';
import { JobLink } from '../job-label.tsx';
import { NotifyButton, useJobEndNotifications } from '../notify.tsx';
import { isRunning, JobProgress, usePolling } from './job-status.tsx';

/** One file of a submission: its upload, then its job. */
export interface Submitted {
  name: string;
  /** Upload progress 0-1; null before it starts. */
  upload: number | null;
  jobId: string | null;
  error: string | null;
}

/**
 * The one progress list of a batch: each file's upload, then its job's phase, queue position and
 * time left, polled while any runs.
 */
export function BatchList({ items }: { items: Submitted[] }) {
  const [jobs, setJobs] = useState<Record<string, JobViewBody>>({});
  const ids = items.flatMap((i) => (i.jobId ? [i.jobId] : []));
  const key = ids.join(',');
  const reload = useCallback(async () => {
    const views = await Promise.all(
      ids.map((id) => api<JobViewBody>('GET', `/jobs/${encodeURIComponent(id)}`).catch(() => null)),
    );
    setJobs(Object.fromEntries(views.flatMap((v) => (v ? [[v.id, v]] : []))));
  }, [key]);
  useEffect(() => {
    void reload();
  }, [reload]);
  const watching = Object.values(jobs);
  usePolling(items.some((i) => !i.jobId && !i.error) || watching.some((j) => isRunning(j.status)), reload);
  useJobEndNotifications(watching);

  return (
    <section class="card batch" aria-label="Progress of these jobs">
      <h2>Progress</h2>
      <NotifyButton />
      <ul class="batch-list">
        {items.map((item, i) => {
          const job = item.jobId ? jobs[item.jobId] : undefined;
          return (
            <li key={i} data-file={item.name} data-job={item.jobId ?? ''} data-status={job?.status ?? ''}>
              <span class="file-name">
                {item.jobId ? <JobLink id={item.jobId} title={job?.title ?? item.name} /> : item.name}
              </span>
              {item.error && (
                <span class="error" role="alert">
                  {item.error}
                </span>
              )}
              {!item.error && !item.jobId && item.upload !== null && (
                <span class="status">
                  Uploading
                  <progress max={1} value={item.upload} aria-label={`Upload of ${item.name}`} />
                  <span class="muted">{Math.round(item.upload * 100)}%</span>
                </span>
              )}
              {!item.error && !item.jobId && item.upload === null && <span class="muted">Waiting to upload</span>}
              {job && <JobProgress job={job} />}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
