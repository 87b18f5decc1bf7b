import { randomBytes } from 'node:crypto';
import { hashPassword } from '../../src/accounts/password.ts';
import { setPasswordHash } from '../../src/store/account-passwords.ts';
import { findAccount } from '../../src/store/accounts.ts';
import { startSession } from '../../src/dashboard/sessions.ts';
import { SESSION_COOKIE } from '../../src/dashboard/cookies.ts';
import { expect } from 'vitest';
import type { TestServer } from './server.ts';

export interface DashboardUser {
  id: string;
  email: string;
  password: string;
  /** The account's API key (from newAccount). */
  key: string;
}

/** A new account with a dashboard password (and the API key every test account has). */
export async function newDashboardUser(s: TestServer, creditSeconds = 300): Promise<DashboardUser> {
  const { id, key } = await s.newAccount(creditSeconds);
  const password = `pw-${randomBytes(9).toString('base64url')}`;
  await setPasswordHash(s.rt.db, id, await hashPassword(password));
  const account = await findAccount(s.rt.db, id);
  return { id, email: account!.email, password, key };
}

export interface DashboardClient {
  cookie: string | null;
  csrf: string | null;
  /** A /dashboard/api request with the session cookie and (for non-GET) the CSRF token. */
  call(method: string, path: string, json?: unknown, headers?: Record<string, string>): Promise<Response>;
  signIn(email: string, password: string): Promise<Response>;
}

/**
 * The setting of a server whose dashboard clients stand for many people behind a proxy on this
 * machine: X-Forwarded-For from loopback peers is believed (TRUST_PROXY), so each dashboardClient
 * counts as its own address.
 */
export const BEHIND_LOCAL_PROXY = { TRUST_PROXY: 'loopback' } as const;

/**
 * A browser-like client of the dashboard API: keeps the session cookie and the CSRF token. Each
 * client claims its own client address (X-Forwarded-For, believed by a server started with
 * BEHIND_LOCAL_PROXY) so the per-address sign-in throttle of one test does not leak into another.
 */
export function dashboardClient(s: TestServer, address = `10.9.${rand()}.${rand()}`): DashboardClient {
  const c: DashboardClient = {
    cookie: null,
    csrf: null,
    call(method, path, json, headers = {}) {
      const h = new Headers({ 'x-forwarded-for': address, ...headers });
      if (c.cookie) h.set('cookie', c.cookie);
      if (c.csrf && method !== 'GET' && !('x-csrf-token' in headers)) h.set('x-csrf-token', c.csrf);
      if (json !== undefined) h.set('content-type', 'application/json');
      return fetch(`${s.base}/dashboard/api${path}`, {
        method,
        headers: h,
        body: json === undefined ? undefined : JSON.stringify(json),
      });
    },
    async signIn(email, password) {
      const res = await c.call('POST', '/session', { email, password });
      const setCookie = res.headers.get('set-cookie');
      if (res.status === 200 && setCookie) {
        c.cookie = setCookie.split(';')[0]!;
        c.csrf = ((await res.clone().json()) as { csrfToken: string }).csrfToken;
      }
      return res;
    },
  };
  return c;
}

const rand = () => Math.floor(Math.random() * 250) + 1;

/** A client already signed in as `user`. */
export async function signedIn(s: TestServer, user: DashboardUser): Promise<DashboardClient> {
  const c = dashboardClient(s);
  const res = await c.signIn(user.email, user.password);
  if (res.status !== 200) throw new Error(`sign-in failed: ${res.status} ${await res.text()}`);
  return c;
}

/** GET a dashboard API path as `c`: 200, and the body as `schema` reads it. */
export async function getJson<T>(c: DashboardClient, path: string, schema: { parse(v: unknown): T }): Promise<T> {
  const res = await c.call('GET', path);
  expect(res.status, path).toBe(200);
  return schema.parse(await res.json());
}

/**
 * A client with a session started in the database, as a sign-in would start it, without a sign-in
 * request: for tests that must not spend the address's sign-in budget.
 */
export async function sessionClient(s: TestServer, accountId: string): Promise<DashboardClient> {
  const c = dashboardClient(s);
  const session = await startSession(s.rt.db, accountId);
  c.cookie = `${SESSION_COOKIE}=${session.token}`;
  c.csrf = session.csrfToken;
  return c;
}
