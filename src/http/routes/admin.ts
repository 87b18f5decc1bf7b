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
import {
  createAccountAsAdmin,
  createKeyAsAdmin,
  grantAsAdmin,
  listAccountsForAdmin,
  readAccount,
  setDisabledAsAdmin,
  usageAsAdmin,
} from '../../accounts/admin.ts';
import { defineRoute } from '../../routing/route.ts';
import type { Runtime } from '../../runtime.ts';

/** Every admin route: an admin account's key only (403 ADMIN_REQUIRED for the others). */
const base = { tag: 'Admin', auth: 'apiKey' as const, admin: true };

/**
 * The operator's admin API (docs/admin.md): accounts, credits, keys and usage
 * over HTTP, for an operator whose own backend sells access. Also under /api/v1/admin.
 */
export function adminRoutes(rt: Runtime) {
  return [
    defineRoute({
      ...base,
      method: 'POST',
      url: '/v1/admin/accounts',
      summary: 'Create an account (with the free credit new accounts get)',
      description:
        'Without a password the account uses API keys only (create one with POST /v1/admin/accounts/{id}/keys); with one it can sign in to the dashboard.',
      body: CreateAccountRequest,
      status: 201,
      response: AdminAccount,
      errors: ['VALIDATION_ERROR', 'EMAIL_TAKEN'],
      handler: async ({ body }) => createAccountAsAdmin(rt, body),
    }),
    defineRoute({
      ...base,
      method: 'GET',
      url: '/v1/admin/accounts',
      summary: 'List accounts, oldest first; q searches the emails',
      query: AccountListQuery,
      status: 200,
      response: AdminAccountList,
      errors: ['VALIDATION_ERROR'],
      handler: async ({ query }) => listAccountsForAdmin(rt.db, query),
    }),
    defineRoute({
      ...base,
      method: 'GET',
      url: '/v1/admin/accounts/:id',
      summary: 'Read an account',
      params: IdParams,
      status: 200,
      response: AdminAccount,
      errors: ['ACCOUNT_NOT_FOUND'],
      handler: async ({ params }) => readAccount(rt.db, params.id),
    }),
    defineRoute({
      ...base,
      method: 'POST',
      url: '/v1/admin/accounts/:id/disable',
      summary: 'Disable an account: its keys and sessions answer 403 ACCOUNT_DISABLED, it cannot sign in',
      description:
        'Jobs it already queued still run. Disabling twice is harmless; an admin cannot disable their own account.',
      params: IdParams,
      status: 200,
      response: AdminAccount,
      errors: ['ACCOUNT_NOT_FOUND', 'CANNOT_DISABLE_SELF'],
      idempotent: false,
      handler: async ({ params, auth }) => setDisabledAsAdmin(rt.db, auth.accountId, params.id, true),
    }),
    defineRoute({
      ...base,
      method: 'POST',
      url: '/v1/admin/accounts/:id/enable',
      summary: 'Enable a disabled account again (its keys and sessions work again)',
      params: IdParams,
      status: 200,
      response: AdminAccount,
      errors: ['ACCOUNT_NOT_FOUND'],
      idempotent: false,
      handler: async ({ params, auth }) => setDisabledAsAdmin(rt.db, auth.accountId, params.id, false),
    }),
    defineRoute({
      ...base,
      method: 'POST',
      url: '/v1/admin/accounts/:id/credits',
      summary: 'Grant credits (seconds), or take them back with a negative number',
      description:
        "Recorded in the account's ledger with the note. A take-back stops at zero: appliedSeconds says what moved. Send an Idempotency-Key to make a retry safe.",
      params: IdParams,
      body: GrantCreditsRequest,
      status: 200,
      response: CreditsGranted,
      errors: ['VALIDATION_ERROR', 'ACCOUNT_NOT_FOUND'],
      handler: async ({ params, body }) => grantAsAdmin(rt.db, params.id, body.seconds, body.note),
    }),
    defineRoute({
      ...base,
      method: 'POST',
      url: '/v1/admin/accounts/:id/keys',
      summary: 'Create an API key for the account; the key is in this answer only',
      description:
        'Stored as its hash, like every key. Not idempotent: a stored answer would keep the key in clear, so an Idempotency-Key is ignored here.',
      params: IdParams,
      body: CreateAccountKeyRequest,
      status: 201,
      response: AccountKeyCreated,
      errors: ['VALIDATION_ERROR', 'ACCOUNT_NOT_FOUND', 'API_KEY_LIMIT_REACHED'],
      idempotent: false,
      handler: async ({ params, body }) => createKeyAsAdmin(rt.db, params.id, body?.name ?? null),
    }),
    defineRoute({
      ...base,
      method: 'GET',
      url: '/v1/admin/accounts/:id/usage',
      summary: "An account's usage over a period: seconds charged, granted, taken back; jobs by kind",
      description:
        'Charges, grants and take-backs count by when the ledger recorded them; jobs by when they were created. from and to are days (UTC) or ISO date-times; default the last 30 days.',
      params: IdParams,
      query: UsageQuery,
      status: 200,
      response: AccountUsage,
      errors: ['VALIDATION_ERROR', 'ACCOUNT_NOT_FOUND'],
      handler: async ({ params, query }) => usageAsAdmin(rt.db, params.id, query),
    }),
  ];
}
