import { useState } from 'preact/hooks';
import type { JobViewBody } from '../../../src/contract/dashboard.ts';
import type { KeepUsageBody } from '../../../src/contract/practice.ts';
import { api, messageOf } from '../api.ts';
import { bytes } from '../format.ts';
import { useData } from '../use-data.ts';

/**
 * Keep: a completed job stays past the retention time, within what this server lets an account keep
 * (`KEEP_LIMIT_MB`), with the space used shown; un-keeping returns it to retention. Keeping costs no
 * credit.
 */
export function KeepButton({ job, reload }: { job: JobViewBody; reload: () => Promise<void> }) {
  const usage = useData<KeepUsageBody>('/keep');
  const [note, setNote] = useState('');
  if (job.status !== 'COMPLETED' || !usage.data || usage.data.limitBytes === 0) return null;
  const { jobs, usedBytes, limitBytes } = usage.data;
  const change = async () => {
    try {
      await api(job.kept ? 'DELETE' : 'POST', `/jobs/${encodeURIComponent(job.id)}/keep`);
      setNote(job.kept ? 'No longer kept: deleted after the retention time.' : 'Kept.');
      await Promise.all([reload(), usage.reload()]);
    } catch (err) {
      setNote(messageOf(err));
    }
  };
  return (
    <span class="keep">
      <button type="button" aria-pressed={job.kept} onClick={() => void change()}>
        {job.kept ? 'Kept (un-keep)' : 'Keep'}
      </button>
      <span class="muted keep-usage" data-used={usedBytes}>
        Kept: {jobs} job{jobs === 1 ? '' : 's'}, {bytes(usedBytes) || '0 B'} of {bytes(limitBytes)}
      </span>
      <span class="muted" aria-live="polite">
        {note}
      </span>
    </span>
  );
}
