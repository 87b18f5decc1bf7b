import type { z } from 'zod';
import { defineRoute } from './route.ts';
import { IdParams } from '../contract/common.ts';
import { CreateWebhookRequest, WebhookCreated, WebhookDeleted, WebhookList } from '../contract/webhooks.ts';
import { ApiError } from '../domain/errors.ts';
import { assertPublicUrl } from '../sources/address-guard.ts';
import {
  createWebhook,
  deleteWebhook,
  listWebhooks,
  MAX_WEBHOOKS_PER_ACCOUNT,
  WebhookLimitError,
  type WebhookView,
} from '../store/webhooks.ts';
import type { Runtime } from '../runtime.ts';

export const presentWebhook = (w: WebhookView) => ({
  id: w.id,
  url: w.url,
  events: w.events,
  isActive: w.isActive,
  failCount: w.failCount,
  lastError: w.lastError,
  lastCalledAt: w.lastCalledAt,
  createdAt: w.createdAt,
});

export function webhookRoutes(rt: Runtime) {
  return [
    defineRoute({
      method: 'POST',
      url: '/v1/webhooks',
      summary: 'Register a webhook; the signing secret is returned only here',
      description:
        `events defaults to both job.completed and job.failed. The URL must resolve to public addresses (unless the server sets ALLOW_PRIVATE_URLS). ` +
        `At most ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks per account.`,
      tag: 'Webhooks',
      auth: 'apiKey',
      body: CreateWebhookRequest,
      status: 201,
      response: WebhookCreated,
      errors: ['VALIDATION_ERROR', 'URL_NOT_ALLOWED', 'WEBHOOK_LIMIT_REACHED'],
      handler: async ({ body, auth }) => {
        const { webhook, secret } = await registerWebhook(rt, auth.accountId, body);
        return {
          id: webhook.id,
          url: webhook.url,
          events: webhook.events,
          secret,
          isActive: webhook.isActive,
          createdAt: webhook.createdAt,
        };
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/webhooks',
      summary: "List the account's webhooks (never their secrets)",
      tag: 'Webhooks',
      auth: 'apiKey',
      status: 200,
      response: WebhookList,
      handler: async ({ auth }) => ({ webhooks: (await listWebhooks(rt.db, auth.accountId)).map(presentWebhook) }),
    }),
    defineRoute({
      method: 'DELETE',
      url: '/v1/webhooks/:id',
      summary: 'Delete a webhook; events not yet delivered to it are dropped',
      tag: 'Webhooks',
      auth: 'apiKey',
      params: IdParams,
      status: 200,
      response: WebhookDeleted,
      errors: ['WEBHOOK_NOT_FOUND'],
      handler: async ({ params, auth }) => {
        if (!(await deleteWebhook(rt.db, auth.accountId, params.id))) {
          throw new ApiError('WEBHOOK_NOT_FOUND', `No webhook '${params.id}'.`);
        }
        return { deleted: true as const };
      },
    }),
  ];
}

/**
 * Creates a webhook after the address check (API and dashboard): refused up front with a clear 400;
 * the sender re-checks at connect time (DNS rebinding).
 */
export async function registerWebhook(rt: Runtime, accountId: string, body: z.infer<typeof CreateWebhookRequest>) {
  await assertPublicUrl(body.url, { allowPrivate: rt.config.allowPrivateUrls });
  try {
    return await createWebhook(rt.db, accountId, { url: body.url, events: body.events });
  } catch (err) {
    if (err instanceof WebhookLimitError) {
      throw new ApiError(
        'WEBHOOK_LIMIT_REACHED',
        `This account already has ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks; delete one first.`,
        { limit: MAX_WEBHOOKS_PER_ACCOUNT },
      );
    }
    throw err;
  }
}
