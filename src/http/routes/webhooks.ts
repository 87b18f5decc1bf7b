import { defineRoute } from '../../routing/route.ts';
import { IdParams } from '../../contract/common.ts';
import { CreateWebhookRequest, WebhookCreated, WebhookDeleted, WebhookList } from '../../contract/webhooks.ts';
import { listWebhooks, MAX_WEBHOOKS_PER_ACCOUNT } from '../../store/webhooks.ts';
import { presentWebhook, registerWebhook, removeWebhook } from '../../webhooks/account-webhooks.ts';
import type { Runtime } from '../../runtime.ts';

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
        await removeWebhook(rt.db, auth.accountId, params.id);
        return { deleted: true as const };
      },
    }),
  ];
}
