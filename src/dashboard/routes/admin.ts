import type { FastifyRequest } from 'fastify';
import {
  createAccountAsAdmin,
  createKeyAsAdmin,
  grantAsAdmin,
  listAccountsForAdmin,
  readAccount,
  setDisabledAsAdmin,
  usageAsAdmin,
} from '../../accounts/admin.ts';
import {
  AccountKeyCreated,
  AccountListQuery,
  AccountUsage,
  AdminAccount,
  AdminAccountList,
  CreateAccountKeyRequest,
  CreateAccountRequest,
  CreditsGranted,
  GrantCreditsRequest,
  UsageQuery,
} from '../../contract/admin.ts';
import { IdParams } from '../../contract/common.ts';
import { KeepUsage } from '../../contract/practice.ts';
import { keepUsageOf } from '../../jobs/actions/keep-job.ts';
import { ApiError } from '../../domain/errors.ts';
import { defineRoute } from '../../routing/route.ts';
import type { Runtime } from '../../runtime.ts';
import { DASHBOARD_API, sessionOf } from '../guard.ts';

const base = { tag: 'Dashboard', auth: 'none' as const };
const ADMIN = `${DASHBOARD_API}/admin`;

/** The signed-in admin's account id; 403 ADMIN_REQUIRED for everyone else. */
function adminOf(request: FastifyRequest): string {
  const s = sessionOf(request);
  if (!s.isAdmin) throw new ApiError('ADMIN_REQUIRED');
  return s.accountId;
}

/**
 * The dashboard's Admin pages: the admin API's operations (`src/accounts/admin.ts`) for a
 * signed-in admin, behind the session cookie and, for changes, the CSRF token (the guard).
 */
export function adminRoutes(rt: Runtime) {
  return [
    defineRoute({
      ...base,
      method: 'GET',
      url: `${ADMIN}/accounts`,
      summary: 'Accounts, oldest first; q searches the emails',
      query: AccountListQuery,
      status: 200,
      response: AdminAccountList,
      handler: async ({ request, query }) => {
        adminOf(request);
        return listAccountsForAdmin(rt.db, query);
      },
    }),
    defineRoute({
      ...base,
      method: 'POST',
      url: `${ADMIN}/accounts`,
      summary: 'Create an account',
      body: CreateAccountRequest,
      status: 201,
      response: AdminAccount,
      handler: async ({ request, body }) => {
        adminOf(request);
        return createAccountAsAdmin(rt, body);
      },
    }),
    defineRoute({
      ...base,
      method: 'GET',
      url: `${ADMIN}/accounts/:id`,
      summary: 'One account',
      params: IdParams,
      status: 200,
      response: AdminAccount,
      handler: async ({ request, params }) => {
        adminOf(request);
        return readAccount(rt.db, params.id);
      },
    }),
    defineRoute({
      ...base,
      method: 'POST',
      url: `${ADMIN}/accounts/:id/credits`,
      summary: 'Grant credits, or take them back (negative)',
      params: IdParams,
      body: GrantCreditsRequest,
      status: 200,
      response: CreditsGranted,
      handler: async ({ request, params, body }) => {
        adminOf(request);
        return grantAsAdmin(rt.db, params.id, body.seconds, body.note);
      },
    }),
    defineRoute({
      ...base,
      method: 'POST',
      url: `${ADMIN}/accounts/:id/keys`,
      summary: 'Create an API key for the account, shown once',
      params: IdParams,
      body: CreateAccountKeyRequest,
      status: 201,
      response: AccountKeyCreated,
      handler: async ({ request, params, body }) => {
        adminOf(request);
        return createKeyAsAdmin(rt.db, params.id, body?.name ?? null);
      },
    }),
    ...(['disable', 'enable'] as const).map((action) =>
      defineRoute({
        ...base,
        method: 'POST',
        url: `${ADMIN}/accounts/:id/${action}`,
        summary: action === 'disable' ? 'Disable an account' : 'Enable an account',
        params: IdParams,
        status: 200,
        response: AdminAccount,
        handler: async ({ request, params }) =>
          setDisabledAsAdmin(rt.db, adminOf(request), params.id, action === 'disable'),
      }),
    ),
    defineRoute({
      ...base,
      method: 'GET',
      url: `${ADMIN}/accounts/:id/usage`,
      summary: "An account's usage over a period",
      params: IdParams,
      query: UsageQuery,
      status: 200,
      response: AccountUsage,
      handler: async ({ request, params, query }) => {
        adminOf(request);
        return usageAsAdmin(rt.db, params.id, query);
      },
    }),
    defineRoute({
      ...base,
      method: 'GET',
      url: `${ADMIN}/accounts/:id/keep`,
      summary: 'What an account keeps past retention (Keep), and the limit',
      params: IdParams,
      status: 200,
      response: KeepUsage,
      handler: async ({ request, params }) => {
        adminOf(request);
        await readAccount(rt.db, params.id);
        return keepUsageOf(rt, params.id);
      },
    }),
  ];
}
