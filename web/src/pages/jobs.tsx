import { useEffect, useState } from 'preact/hooks';
import type { JobsPageBody } from '../../../src/contract/dashboard.ts';
import { api, messageOf } from '../api.ts';
import { bpmKey, dateTime, duration, KIND_LABEL, STATUS_LABEL } from '../format.ts';
import { JobLink } from '../job-label.tsx';
import { NotifyButton, useJobEndNotifications } from '../notify.tsx';
import { navigate } from '../router.ts';
import { useData } from '../use-data.ts';
import { isRunning, JobProgress, usePolling } from './job-status.tsx';
import { Pager } from './pager.tsx';

const PAGE = 20;

/** Credits a job holds while it runs, or what it was charged once it ended. */
export function credits(j: { status: string; creditsHeld: number; creditsCharged: number | null }): string {
  if (isRunning(j.status)) return `${j.creditsHeld} held`;
  return j.creditsCharged == null ? '—' : String(j.creditsCharged);
}

export function Jobs({ url }: { url: URL }) {
  const status = url.searchParams.get('status') ?? '';
  const kind = url.searchParams.get('kind') ?? '';
  const q = url.searchParams.get('q') ?? '';
  const offset = Number(url.searchParams.get('offset') ?? 0) || 0;
  const query = new URLSearchParams({ limit: String(PAGE), offset: String(offset) });
  if (status) query.set('status', status);
  if (kind) query.set('kind', kind);
  if (q) query.set('q', q);
  const { data, error, reload } = useData<JobsPageBody>(`/jobs?${query}`);
  usePolling(data?.jobs.some((j) => isRunning(j.status)) ?? false, reload);
  useJobEndNotifications(data?.jobs ?? []);
  const [search, setSearch] = useState(q);
  const [note, setNote] = useState('');

  const setFilter = (name: string, value: string) => {
    const next = new URLSearchParams(url.search);
    if (value) next.set(name, value);
    else next.delete(name);
    if (name !== 'offset') next.delete('offset');
    navigate(`/jobs${next.size ? `?${next}` : ''}`, true);
  };
  // Searching as one types, a moment after the last key.
  useEffect(() => {
    if (search.trim() === q) return;
    const timer = setTimeout(() => setFilter('q', search.trim()), 300);
    return () => clearTimeout(timer);
  }, [search]);

  const cancel = async (id: string, title: string) => {
    try {
      await api('POST', `/jobs/${encodeURIComponent(id)}/cancel`);
      setNote(`Cancelled ${title}; its credits were released.`);
    } catch (err) {
      setNote(messageOf(err));
    }
    await reload();
  };

  return (
    <>
      <h1>Jobs</h1>
      <div class="toolbar">
        <label class="inline search">
          Search{' '}
          <input
            type="search"
            value={search}
            placeholder="Name or title"
            onInput={(e) => setSearch((e.target as HTMLInputElement).value)}
          />
        </label>
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
        <NotifyButton />
        <a class="button primary" href="/new">
          New job
        </a>
      </div>
      {error && (
        <p class="error" role="alert">
          {error.message}
        </p>
      )}
      <p class="muted" aria-live="polite">
        {note}
      </p>
      <div class="table-wrap">
        <table class="jobs-table cards-on-phone">
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
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {data?.jobs.map((j) => (
              <tr key={j.id} data-job={j.id} data-status={j.status}>
                <td data-label="Title">
                  <JobLink id={j.id} title={j.title} />
                </td>
                <td data-label="Kind">{KIND_LABEL[j.kind] ?? j.kind}</td>
                <td data-label="Status">
                  <JobProgress job={j} />
                </td>
                <td data-label="Duration" class="num">
                  {duration(j.durationSeconds)}
                </td>
                <td data-label="Credits" class="num">
                  {credits(j)}
                </td>
                <td data-label="BPM / key">
                  {bpmKey(j.bpm, j.key, { tempo: j.tempoConfidence, key: j.keyConfidence })}
                </td>
                <td data-label="Created">{dateTime(j.createdAt)}</td>
                <td class="row-actions">
                  {isRunning(j.status) && (
                    <button type="button" aria-label={`Cancel ${j.title}`} onClick={() => void cancel(j.id, j.title)}>
                      Cancel
                    </button>
                  )}
                </td>
              </tr>
            ))}
            {data?.jobs.length === 0 && (
              <tr>
                <td colSpan={8}>
                  No jobs{status || kind || q ? ' match these filters' : ' yet'}. <a href="/new">Create one</a>.
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
