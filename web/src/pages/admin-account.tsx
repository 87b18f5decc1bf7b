import { useEffect, useState } from 'preact/hooks';
import type {
  AccountKeyCreatedBody,
  AccountUsageBody,
  AdminAccountBody,
  CreditsGrantedBody,
  GrantCreditsRequestBody,
} from '../../../src/contract/admin.ts';
import { api, messageOf } from '../api.ts';
import { dateTime, KIND_LABEL } from '../format.ts';
import { useData } from '../use-data.ts';
import { ShownOnce } from './secret.tsx';

const DAY_MS = 86_400_000;
const day = (d: Date) => d.toISOString().slice(0, 10);

/** One account, for an admin: grant or take back credit, give it a key, disable it, its usage. */
export function AdminAccount({ id, self }: { id: string; self: string }) {
  const path = `/admin/accounts/${encodeURIComponent(id)}`;
  const account = useData<AdminAccountBody>(path);
  const [message, setMessage] = useState('');
  const [done, setDone] = useState('');
  const [key, setKey] = useState<AccountKeyCreatedBody | null>(null);
  // Bumped after every change, so the usage shown counts it.
  const [changes, setChanges] = useState(0);
  const a = account.data;

  const act = async (run: () => Promise<string>) => {
    setMessage('');
    setDone('');
    try {
      setDone(await run());
      setChanges((n) => n + 1);
      await account.reload();
    } catch (err) {
      setMessage(messageOf(err));
    }
  };

  const grant = (e: SubmitEvent) => {
    e.preventDefault();
    const form = e.target as HTMLFormElement;
    const fields = new FormData(form);
    const body: GrantCreditsRequestBody = { seconds: Number(fields.get('seconds')), note: String(fields.get('note')) };
    return act(async () => {
      const r = await api<CreditsGrantedBody>('POST', `${path}/credits`, body);
      form.reset();
      return r.appliedSeconds >= 0
        ? `Granted ${r.appliedSeconds} s; the balance is ${r.balanceFormatted}.`
        : `Took back ${-r.appliedSeconds} s; the balance is ${r.balanceFormatted}.`;
    });
  };

  const newKey = () =>
    act(async () => {
      setKey(await api<AccountKeyCreatedBody>('POST', `${path}/keys`, {}));
      return '';
    });

  const toggle = () =>
    act(async () => {
      if (!a) return '';
      if (!a.disabled && !confirm(`Disable ${a.email}? Its keys and dashboard sign-ins stop working until enabled.`))
        return '';
      const r = await api<AdminAccountBody>('POST', `${path}/${a.disabled ? 'enable' : 'disable'}`);
      return r.disabled ? `${r.email} is disabled.` : `${r.email} is enabled.`;
    });

  return (
    <>
      <p>
        <a href="/admin">← Accounts</a>
      </p>
      <h1>{a ? a.email : 'Account'}</h1>
      {account.error && (
        <p class="error" role="alert">
          {account.error.message}
        </p>
      )}
      {a && (
        <section class="card">
          <dl class="facts">
            <dt>Balance</dt>
            <dd data-balance={a.balanceSeconds}>{a.balanceSeconds} s</dd>
            <dt>State</dt>
            <dd>{a.disabled ? `Disabled ${dateTime(a.disabledAt)}` : 'Active'}</dd>
            <dt>Role</dt>
            <dd>{a.isAdmin ? 'Admin' : 'User'}</dd>
            <dt>Active API keys</dt>
            <dd>{a.activeKeys}</dd>
            <dt>Created</dt>
            <dd>{dateTime(a.createdAt)}</dd>
            <dt>Id</dt>
            <dd class="mono">{a.id}</dd>
          </dl>
          <div class="actions">
            <button type="button" onClick={newKey}>
              Create API key
            </button>
            {a.id !== self && (
              <button type="button" class={a.disabled ? '' : 'danger'} onClick={toggle}>
                {a.disabled ? 'Enable account' : 'Disable account'}
              </button>
            )}
          </div>
        </section>
      )}
      {key && (
        <ShownOnce
          title={`New API key for ${a?.email ?? 'the account'}`}
          value={key.key}
          kept="Stemforge stores only a hash of it, so it cannot show it again."
          onDone={() => setKey(null)}
        />
      )}
      <h2>Grant credit</h2>
      <form class="card inline-form" onSubmit={grant} aria-label="Grant credit">
        <label>
          Seconds
          <input name="seconds" type="number" required step={1} min={-1_000_000_000} max={1_000_000_000} />
        </label>
        <label>
          Note
          <input name="note" type="text" required maxLength={500} placeholder="e.g. order 1234" />
        </label>
        <button type="submit" class="primary">
          Grant
        </button>
      </form>
      <p class="muted">
        One credit is one second of audio. A negative number takes credit back, down to zero at most. The note is kept
        in the account's ledger. From a shell: <code>stemforge credits grant --account {id} --seconds N</code>.
      </p>
      {(message || done) && (
        <p class={message ? 'error' : 'ok'} role={message ? 'alert' : 'status'}>
          {message || done}
        </p>
      )}
      <Usage path={path} changes={changes} />
    </>
  );
}

function Usage({ path, changes }: { path: string; changes: number }) {
  const [to, setTo] = useState(() => day(new Date(Date.now() + DAY_MS)));
  const [from, setFrom] = useState(() => day(new Date(Date.now() - 29 * DAY_MS)));
  const usage = useData<AccountUsageBody>(`${path}/usage?${new URLSearchParams({ from, to })}`);
  const u = usage.data;
  useEffect(() => {
    if (changes > 0) void usage.reload();
  }, [changes]);
  return (
    <section aria-label="Usage">
      <h2>Usage</h2>
      <div class="toolbar">
        <label class="inline">
          From <input type="date" value={from} onChange={(e) => setFrom((e.target as HTMLInputElement).value)} />
        </label>
        <label class="inline">
          Until (not included){' '}
          <input type="date" value={to} onChange={(e) => setTo((e.target as HTMLInputElement).value)} />
        </label>
      </div>
      {usage.error && (
        <p class="error" role="alert">
          {usage.error.message}
        </p>
      )}
      {u && (
        <>
          <p>
            <strong data-charged={u.chargedSeconds}>{u.chargedSeconds} s charged</strong>, {u.grantedSeconds} s granted,{' '}
            {u.deductedSeconds} s taken back in this period.
          </p>
          <div class="table-wrap">
            <table class="cards-on-phone">
              <thead>
                <tr>
                  <th scope="col">Kind</th>
                  <th scope="col" class="num">
                    Jobs
                  </th>
                  <th scope="col" class="num">
                    Completed
                  </th>
                  <th scope="col" class="num">
                    Failed
                  </th>
                  <th scope="col" class="num">
                    Charged (s)
                  </th>
                </tr>
              </thead>
              <tbody>
                {Object.entries(u.byKind).map(([kind, k]) => (
                  <tr key={kind}>
                    <td data-label="Kind">{kind === 'deleted' ? 'Deleted jobs' : (KIND_LABEL[kind] ?? kind)}</td>
                    <td data-label="Jobs" class="num">
                      {k.jobs}
                    </td>
                    <td data-label="Completed" class="num">
                      {k.completed}
                    </td>
                    <td data-label="Failed" class="num">
                      {k.failed}
                    </td>
                    <td data-label="Charged (s)" class="num">
                      {k.chargedSeconds}
                    </td>
                  </tr>
                ))}
                {Object.keys(u.byKind).length === 0 && (
                  <tr>
                    <td colSpan={5}>No jobs in this period.</td>
                  </tr>
                )}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
}
