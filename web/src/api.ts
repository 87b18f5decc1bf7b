import type { ErrorBodyShape, SessionInfoBody } from '../../src/contract/dashboard.ts';

/** An answer of /dashboard/api other than 2xx, carrying the API's own code and message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

let csrfToken = '';
let account: SessionInfoBody['account'] | null = null;
let onSignedOut: () => void = () => {};

/** The session endpoints hand out the CSRF token that every non-GET request must echo. */
export function setSession(session: SessionInfoBody | null): void {
  csrfToken = session?.csrfToken ?? '';
  account = session?.account ?? null;
}
/** The signed-in account when it is an admin (pages offer it the Admin pages' grant form), else null. */
export function signedInAdmin(): SessionInfoBody['account'] | null {
  return account?.isAdmin ? account : null;
}
export function whenSignedOut(handler: () => void): void {
  onSignedOut = handler;
}

export async function errorFrom(res: Response): Promise<ApiError> {
  let code = 'HTTP_ERROR';
  let message = `The server answered ${res.status}.`;
  try {
    const body = (await res.json()) as ErrorBodyShape;
    if (body?.error?.message) ({ code, message } = body.error);
  } catch {
    // Not JSON (a proxy's page): keep the generic message.
  }
  return new ApiError(res.status, code, message);
}

/** JSON call to /dashboard/api; a 401 NOT_SIGNED_IN (session expired) sends the user to the sign-in page. */
export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`/dashboard/api${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'same-origin',
  });
  if (!res.ok) {
    const err = await errorFrom(res);
    if (res.status === 401 && err.code === 'NOT_SIGNED_IN' && path !== '/session') onSignedOut();
    throw err;
  }
  if (res.status === 204) return undefined as T;
  return (await res.json()) as T;
}

export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
