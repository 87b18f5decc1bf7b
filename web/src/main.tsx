import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { SessionInfoBody } from '../../src/contract/dashboard.ts';
import { api, setSession, whenSignedOut } from './api.ts';
import { interceptLinks, navigate, useLocation } from './router.ts';
import { SignIn } from './pages/sign-in.tsx';
import { Overview } from './pages/overview.tsx';
import { NewJob } from './pages/new-job.tsx';
import { Jobs } from './pages/jobs.tsx';
import { JobDetail } from './pages/job-detail.tsx';
import { Keys } from './pages/keys.tsx';
import { Webhooks } from './pages/webhooks.tsx';
import { Account } from './pages/account.tsx';
import { AdminAccounts } from './pages/admin-accounts.tsx';
import { AdminAccount } from './pages/admin-account.tsx';

const NAV: [string, string][] = [
  ['/', 'Overview'],
  ['/new', 'New job'],
  ['/jobs', 'Jobs'],
  ['/keys', 'API keys'],
  ['/webhooks', 'Webhooks'],
  ['/account', 'Account'],
];

/** Shown to admins only (the server answers the admin pages' API to no one else). */
const ADMIN_NAV: [string, string] = ['/admin', 'Admin'];

function Page({ url, session }: { url: URL; session: SessionInfoBody }) {
  const path = url.pathname.replace(/\/+$/, '') || '/';
  const jobId = /^\/jobs\/([^/]+)$/.exec(path)?.[1];
  if (jobId !== undefined) return <JobDetail id={decodeURIComponent(jobId)} />;
  const accountId = /^\/admin\/accounts\/([^/]+)$/.exec(path)?.[1];
  if (accountId !== undefined && session.account.isAdmin)
    return <AdminAccount id={decodeURIComponent(accountId)} self={session.account.id} />;
  switch (path) {
    case '/':
      return <Overview />;
    case '/new':
      return <NewJob />;
    case '/jobs':
      return <Jobs url={url} />;
    case '/keys':
      return <Keys />;
    case '/webhooks':
      return <Webhooks />;
    case '/account':
      return <Account email={session.account.email} />;
    case '/admin':
      if (session.account.isAdmin) return <AdminAccounts url={url} />;
      break;
  }
  return (
    <>
      <h1>Page not found</h1>
      <p>
        There is no page at this address. <a href="/">Go to the overview</a>.
      </p>
    </>
  );
}

function App() {
  const url = useLocation();
  const [session, setState] = useState<SessionInfoBody | null | undefined>(undefined);

  const update = (s: SessionInfoBody | null) => {
    setSession(s);
    setState(s);
  };

  useEffect(() => {
    whenSignedOut(() => update(null));
    api<SessionInfoBody>('GET', '/session').then(update, () => update(null));
  }, []);

  // Signed out: every page shows the sign-in form, which returns to the page asked for.
  useEffect(() => {
    if (session === null && url.pathname !== '/sign-in') {
      navigate(`/sign-in?next=${encodeURIComponent(url.pathname + url.search)}`, true);
    } else if (session && url.pathname === '/sign-in') {
      navigate(safeNext(url.searchParams.get('next')), true);
    }
  }, [session, url.pathname]);

  // A page change in the app moves focus to the top of the page, onto a hidden line naming the
  // new page (screen readers announce it); the next Tab reaches the skip link, then the navigation.
  // (Focusing the heading instead made Tab skip both.) The first load leaves focus where browsers
  // put it.
  const [announced, setAnnounced] = useState('');
  const [menuOpen, setMenuOpen] = useState(false);
  const firstPage = useRef(true);
  useEffect(() => {
    setMenuOpen(false);
    const h1 = document.querySelector('main h1') as HTMLElement | null;
    const title = h1?.textContent ?? 'Stemforge';
    document.title = `${title} · Stemforge`;
    setAnnounced(title);
    if (firstPage.current) {
      firstPage.current = false;
      return;
    }
    document.getElementById('page-top')?.focus({ preventScroll: true });
    window.scrollTo(0, 0);
  }, [url.pathname, session]);

  if (session === undefined) return <main id="main" aria-busy="true" />;
  if (session === null || url.pathname === '/sign-in') {
    return (
      <main id="main" class="narrow">
        <SignIn onSignedIn={update} />
      </main>
    );
  }

  const signOut = async () => {
    await api('DELETE', '/session').catch(() => {});
    update(null);
  };

  const active = (href: string) =>
    href === '/' ? url.pathname === '/' : url.pathname === href || url.pathname.startsWith(`${href}/`);

  return (
    <>
      <p id="page-top" class="sr-only" tabIndex={-1}>
        {announced}
      </p>
      <a class="skip" href="#main" data-external>
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href="/">
          Stemforge
        </a>
        <button
          type="button"
          class="menu-button"
          aria-expanded={menuOpen}
          aria-controls="main-nav"
          onClick={() => setMenuOpen(!menuOpen)}
        >
          Menu
        </button>
        <nav id="main-nav" aria-label="Main" class={menuOpen ? 'open' : ''}>
          <ul>
            {(session.account.isAdmin ? [...NAV, ADMIN_NAV] : NAV).map(([href, label]) => (
              <li key={href}>
                <a href={href} aria-current={active(href) ? 'page' : undefined}>
                  {label}
                </a>
              </li>
            ))}
            <li>
              <a href="/docs" data-external>
                API reference
              </a>
            </li>
            <li>
              <a href="/v1/openapi.json" data-external>
                OpenAPI
              </a>
            </li>
          </ul>
        </nav>
        <span class="who">{session.account.email}</span>
        <button type="button" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main id="main">
        <Page url={url} session={session} />
      </main>
    </>
  );
}

/** Only paths of this site: `next=//evil.example` or `next=https://...` go to the overview instead. */
function safeNext(next: string | null): string {
  return next && /^\/(?!\/)/.test(next) && !next.startsWith('/sign-in') ? next : '/';
}

interceptLinks();
render(<App />, document.getElementById('app')!);
