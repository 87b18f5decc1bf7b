import { IdParams } from '../../contract/common.ts';
import {
  DashboardCreateWebhookRequest,
  DashboardWebhook,
  DashboardWebhookCreated,
  DashboardWebhookList,
  DeliveryList,
  WebhookTestResult,
} from '../../contract/dashboard.ts';
import { ApiError } from '../../domain/errors.ts';
import { defineRoute } from '../../routing/route.ts';
import { presentWebhook, reenableWebhook, registerWebhook, removeWebhook } from '../../webhooks/account-webhooks.ts';
import type { Runtime } from '../../runtime.ts';
import { listWebhookDeliveries, TEST_EVENT } from '../../store/webhook-deliveries.ts';
import { jobTitles } from '../../jobs/present/job-title.ts';
import { deliveryOutcome } from '../present-delivery.ts';
import { findWebhook, listWebhooks } from '../../store/webhooks.ts';
import { DASHBOARD_API, sessionOf } from '../guard.ts';
import { sendTestEvent } from '../test-event.ts';

const base = { tag: 'Dashboard', auth: 'none' as const };

export function webhookRoutes(rt: Runtime) {
  /** The signed-in account's live webhook; another account's id is the same 404 as an unknown one. */
  const ownWebhook = async (accountId: string, id: string) => {
    const row = await findWebhook(rt.db, id);
    if (!row || row.account_id !== accountId || row.deleted_at) {
      throw new ApiError('WEBHOOK_NOT_FOUND', `No webhook '${id}'.`);
    }
    return row;
  };
  const byId = { params: IdParams };
  return [
    defineRoute({
      ...base,
      method: 'GET',
      url: `${DASHBOARD_API}/webhooks`,
      summary: "The account's webhooks (never their secrets)",
      status: 200,
      response: DashboardWebhookList,
      handler: async ({ request }) => ({
        webhooks: (await listWebhooks(rt.db, sessionOf(request).accountId)).map(presentWebhook),
      }),
    }),
    defineRoute({
      ...base,
      method: 'POST',
      url: `${DASHBOARD_API}/webhooks`,
      summary: 'Register a webhook; the signing secret is in this answer only',
      body: DashboardCreateWebhookRequest,
      status: 201,
      response: DashboardWebhookCreated,
      handler: async ({ request, body }) => {
        const { webhook, secret } = await registerWebhook(rt, sessionOf(request).accountId, body);
        return { ...presentWebhook(webhook), secret };
      },
    }),
    defineRoute({
      ...base,
      ...byId,
      method: 'DELETE',
      url: `${DASHBOARD_API}/webhooks/:id`,
      summary: 'Delete a webhook',
      status: 204,
      response: null,
      handler: async ({ request, params, reply }) => {
        await removeWebhook(rt.db, sessionOf(request).accountId, params.id);
        return reply.code(204).send();
      },
    }),
    defineRoute({
      ...base,
      ...byId,
      method: 'POST',
      url: `${DASHBOARD_API}/webhooks/:id/enable`,
      summary: 'Re-enable a webhook: active again, failCount 0, lastError cleared',
      status: 200,
      response: DashboardWebhook,
      handler: async ({ request, params }) => {
        const row = await ownWebhook(sessionOf(request).accountId, params.id);
        return presentWebhook(await reenableWebhook(rt.db, row.id));
      },
    }),
    defineRoute({
      ...base,
      ...byId,
      method: 'POST',
      url: `${DASHBOARD_API}/webhooks/:id/test`,
      summary: 'Send a signed test event now',
      status: 200,
      response: WebhookTestResult,
      handler: async ({ request, params }) =>
        sendTestEvent(rt, await ownWebhook(sessionOf(request).accountId, params.id)),
    }),
    defineRoute({
      ...base,
      ...byId,
      method: 'GET',
      url: `${DASHBOARD_API}/webhooks/:id/deliveries`,
      summary: 'The 50 most recent deliveries',
      status: 200,
      response: DeliveryList,
      handler: async ({ request, params }) => {
        const row = await ownWebhook(sessionOf(request).accountId, params.id);
        const accountId = sessionOf(request).accountId;
        const rows = await listWebhookDeliveries(rt.db, row.id, 50);
        const titles = await jobTitles(
          rt.db,
          accountId,
          rows.map((d) => d.job_id),
        );
        return {
          deliveries: rows.map((d) => ({
            id: d.id,
            event: d.event,
            jobId: d.event === TEST_EVENT ? null : d.job_id,
            jobTitle: titles.get(d.job_id) ?? null,
            outcome: deliveryOutcome(d),
            statusCode: d.response_status,
            durationMs: d.duration_ms,
            error: d.error,
            createdAt: d.created_at,
          })),
        };
      },
    }),
  ];
}
