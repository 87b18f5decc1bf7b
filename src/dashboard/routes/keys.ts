import { IdParams } from '../../contract/common.ts';
import { CreateKeyRequest, KeyCreated, KeyList } from '../../contract/dashboard.ts';
import { ApiError } from '../../domain/errors.ts';
import { defineRoute } from '../../routing/route.ts';
import type { Runtime } from '../../runtime.ts';
import { type ApiKeyInfo, createApiKey, listApiKeys, revokeApiKey } from '../../store/api-keys.ts';
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
        // Past MAX_ACTIVE_KEYS: KeyLimitError, answered API_KEY_LIMIT_REACHED (src/http/error-table.ts).
        const { key, info } = await createApiKey(rt.db, sessionOf(request).accountId, body.name);
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
        if (!(await revokeApiKey(rt.db, params.id, sessionOf(request).accountId))) {
          throw new ApiError('NOT_FOUND', `No API key '${params.id}'.`);
        }
        return reply.code(204).send();
      },
    }),
  ];
}
