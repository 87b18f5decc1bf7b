import { IdParams } from '../../contract/common.ts';
import { CreateKeyRequest, KeyCreated, KeyList } from '../../contract/dashboard.ts';
import { defineRoute } from '../../routing/route.ts';
import type { Runtime } from '../../runtime.ts';
import { issueKey, revokeKey } from '../../accounts/api-keys.ts';
import { type ApiKeyInfo, listApiKeys } from '../../store/api-keys.ts';
import { DASHBOARD_API, sessionOf } from '../guard.ts';

const base = { tag: 'Dashboard', auth: 'none' as const };

const present = (k: ApiKeyInfo) => ({
  id: k.id,
  // Keys made by the CLI or the first start have no name.
  name: k.name ?? 'unnamed',
  prefix: k.prefix,
  createdAt: k.createdAt,
  lastUsedAt: k.lastUsedAt,
  revokedAt: k.revokedAt,
  isActive: k.revokedAt === null,
});

export function keyRoutes(rt: Runtime) {
  return [
    defineRoute({
      ...base,
      method: 'GET',
      url: `${DASHBOARD_API}/keys`,
      summary: "The account's API keys (never the keys themselves)",
      status: 200,
      response: KeyList,
      handler: async ({ request }) => ({
        keys: (await listApiKeys(rt.db, sessionOf(request).accountId)).map(present),
      }),
    }),
    defineRoute({
      ...base,
      method: 'POST',
      url: `${DASHBOARD_API}/keys`,
      summary: 'Create an API key; the secret is in this answer only',
      body: CreateKeyRequest,
      status: 201,
      response: KeyCreated,
      handler: async ({ request, body }) => {
        const { key, info } = await issueKey(rt.db, sessionOf(request).accountId, body.name);
        return { key: present(info), secret: key };
      },
    }),
    defineRoute({
      ...base,
      method: 'DELETE',
      url: `${DASHBOARD_API}/keys/:id`,
      summary: 'Revoke an API key',
      params: IdParams,
      status: 204,
      response: null,
      handler: async ({ request, params, reply }) => {
        await revokeKey(rt.db, sessionOf(request).accountId, params.id);
        return reply.code(204).send();
      },
    }),
  ];
}
