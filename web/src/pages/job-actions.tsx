import { useEffect, useRef, useState } from 'preact/hooks';
import type { JobViewBody } from '../../../src/contract/dashboard.ts';
import { api, messageOf } from '../api.ts';
import { navigate } from '../router.ts';
import { isRunning } from './job-status.tsx';
import { KeepButton } from './keep-button.tsx';

/**
 * What one does to a job from its page: rename it, cancel it while it runs (credits released), or
 * delete it and its files once it ended (after a confirmation).
 */
export function JobActions({ job, reload }: { job: JobViewBody; reload: () => Promise<void> }) {
  const [renaming, setRenaming] = useState(false);
  const [name, setName] = useState(job.title);
  const [note, setNote] = useState('');
  const path = `/jobs/${encodeURIComponent(job.id)}`;
  const field = useRef<HTMLInputElement>(null);
  const renameButton = useRef<HTMLButtonElement>(null);
  const wasRenaming = useRef(false);
  // Rename moves focus into the field (its text selected); leaving the form returns it to Rename.
  useEffect(() => {
    if (renaming) {
      field.current?.focus();
      field.current?.select();
    } else if (wasRenaming.current) {
      renameButton.current?.focus();
    }
    wasRenaming.current = renaming;
  }, [renaming]);
  const stopRenaming = () => {
    setName(job.title);
    setRenaming(false);
  };

  const act = async (work: () => Promise<string>) => {
    try {
      setNote(await work());
    } catch (err) {
      setNote(messageOf(err));
    }
  };
  const rename = (e: SubmitEvent) => {
    e.preventDefault();
    void act(async () => {
      await api('PATCH', path, { name });
      setRenaming(false);
      await reload();
      return 'Renamed.';
    });
  };
  const cancel = () =>
    act(async () => {
      await api('POST', `${path}/cancel`);
      await reload();
      return 'Cancelled; its credits were released.';
    });
  const remove = () =>
    act(async () => {
      if (!confirm(`Delete “${job.title}” and all its files? This cannot be undone.`)) return '';
      await api('DELETE', path);
      navigate('/jobs');
      return '';
    });

  return (
    <div class="job-actions">
      {renaming ? (
        <form
          class="inline-form"
          onSubmit={rename}
          onKeyDown={(e) => {
            if (e.key === 'Escape') {
              e.preventDefault();
              stopRenaming();
            }
          }}
        >
          <label>
            New name
            <input
              ref={field}
              type="text"
              value={name}
              maxLength={200}
              onInput={(e) => setName((e.target as HTMLInputElement).value)}
            />
          </label>
          <button type="submit" class="primary">
            Save name
          </button>
          <button type="button" onClick={stopRenaming}>
            Keep the name
          </button>
        </form>
      ) : (
        <div class="actions">
          <button type="button" ref={renameButton} onClick={() => setRenaming(true)}>
            Rename
          </button>
          {isRunning(job.status) ? (
            <button type="button" onClick={cancel}>
              Cancel job
            </button>
          ) : (
            <button type="button" class="danger" onClick={remove}>
              Delete
            </button>
          )}
          <KeepButton job={job} reload={reload} />
        </div>
      )}
      <p class="muted" aria-live="polite">
        {note}
      </p>
    </div>
  );
}
