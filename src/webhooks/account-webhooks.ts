import type { z } from 'zod';
import type { Config } from '../config.ts';
import type { CreateWebhookRequest } from '../contract/webhooks.ts';
import { assertPublicUrl } from '../net/address-guard.ts';
import type { Db } from '../store/schema.ts';
import { ApiError } from '../domain/errors.ts';
import { createWebhook, deleteWebhook, enableWebhook, type WebhookView } from '../store/webhooks.ts';

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
  // Past MAX_WEBHOOKS_PER_ACCOUNT: WebhookLimitError, answered WEBHOOK_LIMIT_REACHED (src/http/error-table.ts).
  return createWebhook(deps.db, accountId, { url: body.url, events: body.events });
}

/** Deletes one of the account's webhooks; another account's id is the same 404 as an unknown one. */
export async function removeWebhook(db: Db, accountId: string, id: string): Promise<void> {
  if (!(await deleteWebhook(db, accountId, id))) throw new ApiError('WEBHOOK_NOT_FOUND', `No webhook '${id}'.`);
}

/** Re-enables a webhook that failures disabled, clearing its failure count; the caller checked it is the account's. */
export async function reenableWebhook(db: Db, id: string): Promise<WebhookView> {
  const view = await enableWebhook(db, id);
  if (!view) throw new ApiError('WEBHOOK_NOT_FOUND', `No webhook '${id}'.`);
  return view;
}
