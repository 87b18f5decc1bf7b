import { useEffect, useState } from 'preact/hooks';
import type { AdminAccountBody, AdminAccountListBody, CreateAccountRequestBody } from '../../../src/contract/admin.ts';
import { api, messageOf } from '../api.ts';
import { dateTime } from '../format.ts';
import { navigate } from '../router.ts';
import { useData } from '../use-data.ts';
import { Pager } from './pager.tsx';

const PAGE = 20;

/** The admin's accounts page: every account, searched by email, paged; and a form to create one. */
export function AdminAccounts({ url }: { url: URL }) {
  const q = url.searchParams.get('q') ?? '';
  const offset = Number(url.searchParams.get('offset') ?? 0) || 0;
  const query = new URLSearchParams({ limit: String(PAGE), offset: String(offset) });
  if (q) query.set('q', q);
  const { data, error, reload } = useData<AdminAccountListBody>(`/admin/accounts?${query}`);
  const [search, setSearch] = useState(q);
  const [message, setMessage] = useState('');
  const [created, setCreated] = useState<AdminAccountBody | null>(null);

  const go = (next: URLSearchParams) => navigate(`/admin${next.size ? `?${next}` : ''}`, true);
  useEffect(() => {
    if (search.trim() === q) return;
    const timer = setTimeout(() => go(new URLSearchParams(search.trim() ? { q: search.trim() } : {})), 300);
    return () => clearTimeout(timer);
  }, [search]);

  const create = async (e: SubmitEvent) => {
    e.preventDefault();
    const form = e.target as HTMLFormElement;
    const fields = new FormData(form);
    const password = String(fields.get('password') ?? '');
    const body: CreateAccountRequestBody = {
      email: String(fields.get('email')),
      ...(password ? { password } : {}),
    };
    setMessage('');
    try {
      setCreated(await api<AdminAccountBody>('POST', '/admin/accounts', body));
      form.reset();
      await reload();
    } catch (err) {
      setMessage(messageOf(err));
    }
  };

  return (
    <>
      <h1>Accounts</h1>
      <p class="muted">
        Everyone who uses this server. Open an account to grant it credit, give it an API key, see its usage or disable
        it. The same operations are in the API under <code>/v1/admin</code> for an admin's key.
      </p>
      <form class="card inline-form" onSubmit={create} aria-label="Create an account">
        <label>
          Email
          <input name="email" type="email" required maxLength={320} placeholder="name@example.com" />
        </label>
        <label>
          Password (optional)
          <input name="password" type="password" minLength={10} maxLength={1024} autoComplete="new-password" />
        </label>
        <button type="submit" class="primary">
          Create account
        </button>
      </form>
      {created && (
        <p class="ok" role="status">
          Created <a href={`/admin/accounts/${encodeURIComponent(created.id)}`}>{created.email}</a> with{' '}
          {created.balanceSeconds} s of credit.
        </p>
      )}
      {(message || error) && (
        <p class="error" role="alert">
          {message || error?.message}
        </p>
      )}
      <div class="toolbar">
        <label class="inline search">
          Search{' '}
          <input
            type="search"
            value={search}
            placeholder="Email contains"
            onInput={(e) => setSearch((e.target as HTMLInputElement).value)}
          />
        </label>
      </div>
      <div class="table-wrap">
        <table class="cards-on-phone">
          <thead>
            <tr>
              <th scope="col">Email</th>
              <th scope="col">State</th>
              <th scope="col" class="num">
                Balance (s)
              </th>
              <th scope="col" class="num">
                Active keys
              </th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {data?.accounts.map((a) => (
              <tr key={a.id} data-account={a.id}>
                <td data-label="Email">
                  <a href={`/admin/accounts/${encodeURIComponent(a.id)}`}>{a.email}</a>
                  {a.isAdmin && <span class="badge ledger-grant admin-badge">Admin</span>}
                </td>
                <td data-label="State">
                  {a.disabled ? (
                    <span class="badge status-failed">Disabled</span>
                  ) : (
                    <span class="badge status-completed">Active</span>
                  )}
                </td>
                <td data-label="Balance (s)" class="num">
                  {a.balanceSeconds}
                </td>
                <td data-label="Active keys" class="num">
                  {a.activeKeys}
                </td>
                <td data-label="Created">{dateTime(a.createdAt)}</td>
              </tr>
            ))}
            {data?.accounts.length === 0 && (
              <tr>
                <td colSpan={5}>{q ? `No account's email contains "${q}".` : 'No accounts.'}</td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      {data && (
        <Pager
          pagination={data.pagination}
          onOffset={(o) => go(new URLSearchParams({ ...(q ? { q } : {}), ...(o ? { offset: String(o) } : {}) }))}
          label="Account pages"
        />
      )}
    </>
  );
}
