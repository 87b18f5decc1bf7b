import type { z } from 'zod';
import type { Config } from '../config.ts';
import { ApiError } from '../domain/errors.ts';
import type { CreateWebhookRequest } from '../contract/webhooks.ts';
import { assertPublicUrl } from '../sources/address-guard.ts';
import type { Db } from '../store/schema.ts';
import { createWebhook, MAX_WEBHOOKS_PER_ACCOUNT, WebhookLimitError, type WebhookView } from '../store/webhooks.ts';

/** A webhook as the API and the dashboard list it: everything but the secret. */
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

/**
 * Creates a webhook after the address check (API and dashboard): refused up front with a clear 400;
 * the sender re-checks at connect time (DNS rebinding).
 */
export async function registerWebhook(
  deps: { db: Db; config: Pick<Config, 'allowPrivateUrls'> },
  accountId: string,
  body: z.infer<typeof CreateWebhookRequest>,
) {
  await assertPublicUrl(body.url, { allowPrivate: deps.config.allowPrivateUrls });
  try {
    return await createWebhook(deps.db, accountId, { url: body.url, events: body.events });
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
