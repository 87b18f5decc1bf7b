import { randomUUID } from 'node:crypto';
import { WebhookPayload } from '../contract/webhooks.ts';
import type { Runtime } from '../runtime.ts';
import type { WebhookRow } from '../store/webhooks.ts';
import { sendWebhook } from '../webhooks/send.ts';
import { recordTestDelivery } from '../store/webhook-deliveries.ts';

/**
 * Sends a signed test event to a webhook now (the dashboard's "send test event"): a `job.completed`
 * payload of the contract's shape for a job that does not exist (`jobId` starts with `test_`,
 * `metadata.test` is true), signed with the webhook's secret by the same sender as real deliveries
 * (address guard, timeout, no redirects). Listed among the deliveries once sent (never an outbox
 * row to send) and not counted in `failCount`: a test must not disable a webhook, nor re-enable one.
 */
export async function sendTestEvent(rt: Runtime, hook: WebhookRow) {
  const now = new Date().toISOString();
  const testId = `test_${randomUUID()}`;
  const body = WebhookPayload.parse({
    event: 'job.completed',
    timestamp: now,
    data: {
      jobId: testId,
      status: 'COMPLETED',
      input: { fileName: 'test-event.mp3', durationSeconds: 0, fileSizeBytes: 0 },
      options: { outputType: 'BOTH', quality: 'BEST', outputFormat: 'MP3' },
      outputs: null,
      creditsCharged: 0,
      errorMessage: null,
      createdAt: now,
      completedAt: now,
      metadata: { test: true },
    },
  });
  const result = await sendWebhook({
    url: hook.url,
    secret: hook.secret,
    webhookId: hook.id,
    event: body.event,
    body,
    timeoutMs: rt.config.webhookTimeoutMs,
    allowPrivate: rt.config.allowPrivateUrls,
  });
  await recordTestDelivery(rt.db, {
    webhookId: hook.id,
    testId,
    at: now,
    status: result.status,
    error: result.error,
    durationMs: result.durationMs,
  });
  return { statusCode: result.status, durationMs: result.durationMs, error: result.error };
}
