import { useState } from 'preact/hooks';
import type { CreateKeyRequestBody, KeyCreatedBody, KeyListBody } from '../../../src/contract/dashboard.ts';
import { api, messageOf } from '../api.ts';
import { dateTime } from '../format.ts';
import { useData } from '../use-data.ts';
import { ShownOnce } from './secret.tsx';

export const MAX_ACTIVE_KEYS = 5;

export function Keys() {
  const { data, error, reload } = useData<KeyListBody>('/keys');
  const [created, setCreated] = useState<KeyCreatedBody | null>(null);
  const [message, setMessage] = useState('');
  const active = data?.keys.filter((k) => k.isActive).length ?? 0;

  const create = async (e: SubmitEvent) => {
    e.preventDefault();
    const formEl = e.target as HTMLFormElement;
    const body: CreateKeyRequestBody = { name: String(new FormData(formEl).get('name')) };
    setMessage('');
    try {
      setCreated(await api<KeyCreatedBody>('POST', '/keys', body));
      formEl.reset();
      await reload();
    } catch (err) {
      setMessage(messageOf(err));
    }
  };

  const revoke = async (id: string, name: string) => {
    if (!confirm(`Revoke the key "${name}"? Programs using it stop working at once.`)) return;
    setMessage('');
    try {
      await api('DELETE', `/keys/${encodeURIComponent(id)}`);
      await reload();
    } catch (err) {
      setMessage(messageOf(err));
    }
  };

  return (
    <>
      <h1>API keys</h1>
      <p>
        Keys authenticate programs against the <a href="/docs">HTTP API</a> (<code>Authorization: Bearer …</code>). At
        most {MAX_ACTIVE_KEYS} can be active; {active} are.
      </p>
      {created && (
        <ShownOnce
          title="Your new API key"
          value={created.secret}
          kept="Stemforge stores only a hash of it, so it cannot show it again."
          onDone={() => setCreated(null)}
        />
      )}
      <form class="card inline-form" onSubmit={create}>
        <label>
          Key name
          <input name="name" type="text" required maxLength={100} placeholder="e.g. laptop script" />
        </label>
        <button type="submit" class="primary" disabled={active >= MAX_ACTIVE_KEYS}>
          Create key
        </button>
      </form>
      {(message || error) && (
        <p class="error" role="alert">
          {message || error?.message}
        </p>
      )}
      <div class="table-wrap">
        <table class="cards-on-phone">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Prefix</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">State</th>
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {data?.keys.map((k) => (
              <tr key={k.id} data-key={k.id}>
                <td data-label="Name">{k.name}</td>
                <td data-label="Prefix" class="mono">
                  {k.prefix}…
                </td>
                <td data-label="Created">{dateTime(k.createdAt)}</td>
                <td data-label="Last used">{k.lastUsedAt ? dateTime(k.lastUsedAt) : 'Never'}</td>
                <td data-label="State">
                  {k.isActive ? (
                    <span class="badge status-completed">Active</span>
                  ) : (
                    <span class="badge status-failed">Revoked {dateTime(k.revokedAt)}</span>
                  )}
                </td>
                <td class="row-actions">
                  {k.isActive && (
                    <button type="button" onClick={() => revoke(k.id, k.name)} aria-label={`Revoke ${k.name}`}>
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
            {data?.keys.length === 0 && (
              <tr>
                <td colSpan={6}>No keys yet.</td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
    </>
  );
}
