import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Db } from '../store/schema.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import { findJob } from '../store/jobs.ts';
import { findWebhook } from '../store/webhooks.ts';
import {
  claimDelivery,
  finishDelivery,
  listPendingDeliveries,
  requeueDeadClaims,
  skipDelivery,
  type DeliveryRow,
} from '../store/webhook-deliveries.ts';
import { PROCESS_ID } from '../domain/process-id.ts';
import { buildWebhookPayload } from '../jobs/events/webhook-payload.ts';
import { sendWebhook } from './send.ts';
import type { WebhookEventName } from '../domain/vocabulary.ts';
import type { Metrics } from '../metrics/metrics.ts';

/** What delivering webhooks needs (`src/runtime.ts` satisfies it). */
export interface DispatcherDeps {
  config: Pick<Config, 'allowPrivateUrls' | 'webhookTimeoutMs' | 'deployment'>;
  db: Db;
  blobs: BlobStore;
  log: Logger;
  metrics: Pick<Metrics, 'webhookDeliveries'>;
}

export interface DispatcherOptions {
  /** How often the outbox is polled when idle. */
  pollMs?: number;
  /** Rows read per poll. */
  batchSize?: number;
  /** Deliveries in flight at once (each is network wait, not CPU). */
  concurrency?: number;
  /**
   * A `sending` row older than this was claimed by a process that died: it is sent again.
   * Default: the webhook timeout plus a minute, so a live attempt (bounded by the timeout) is never
   * mistaken for a dead one, even by another process with a slightly different clock.
   */
  staleAfterMs?: number;
  /**
   * Whether this dispatcher starts as the only one on its database (the embedded deployment's
   * process), so every `sending` row another process claimed is from a dead process and is sent
   * again at once. Default: from the deployment mode.
   */
  soleSender?: boolean;
}

export interface WebhookDispatcher {
  /** Stops polling and waits for the attempts in flight to be recorded. */
  stop(): Promise<void>;
  /**
   * Delivers until no pending row is left and this dispatcher's own attempts are recorded (tests,
   * operator tools). Rows another process is sending at that moment are not waited for.
   */
  drain(): Promise<void>;
}

/** What happened to one outbox row. */
export type DeliveryResult = 'sent' | 'failed' | 'skipped' | 'not-claimed';

/**
 * Delivers one outbox row: claim it (pending -> sending, atomically, in this process's name), then
 * either skip it (webhook deleted or inactive) or make the one attempt and record the outcome. Never
 * throws for a receiver problem; a database error leaves the row `sending`, to be sent again once
 * the claim is stale.
 */
export async function deliverOne(deps: DispatcherDeps, row: DeliveryRow): Promise<DeliveryResult> {
  const result = await attemptDelivery(deps, row);
  if (result !== 'not-claimed') deps.metrics.webhookDeliveries.inc({ outcome: result });
  return result;
}

async function attemptDelivery(deps: DispatcherDeps, row: DeliveryRow): Promise<DeliveryResult> {
  const owner = PROCESS_ID;
  if (!(await claimDelivery(deps.db, row.id, owner))) return 'not-claimed';
  const hook = await findWebhook(deps.db, row.webhook_id);
  const skipReason = !hook
    ? 'webhook not found'
    : hook.deleted_at
      ? 'webhook deleted'
      : hook.is_active !== 1
        ? 'webhook inactive'
        : null;
  if (skipReason || !hook) {
    await skipDelivery(deps.db, row.id, owner, skipReason ?? 'webhook not found');
    return 'skipped';
  }
  const job = await findJob(deps.db, row.job_id);
  if (!job) {
    await skipDelivery(deps.db, row.id, owner, 'job not found');
    return 'skipped';
  }
  // The body stored when the job's state committed (the same bytes every time it is sent); rows
  // written before bodies were stored are built now.
  let body: unknown = row.payload;
  try {
    body ??= await buildWebhookPayload(job, row.event as WebhookEventName, row.created_at, deps.blobs);
  } catch (err) {
    // Our fault, not the receiver's: not counted against the webhook.
    await skipDelivery(deps.db, row.id, owner, `payload could not be built: ${(err as Error).message}`);
    return 'skipped';
  }
  const result = await sendWebhook({
    url: hook.url,
    secret: hook.secret,
    webhookId: hook.id,
    event: row.event,
    body,
    timeoutMs: deps.config.webhookTimeoutMs,
    allowPrivate: deps.config.allowPrivateUrls,
  });
  await finishDelivery(deps.db, row, owner, result);
  if (!result.ok)
    deps.log.info(
      { webhookId: hook.id, jobId: job.id, event: row.event, error: result.error },
      'webhook delivery failed',
    );
  return result.ok ? 'sent' : 'failed';
}

/**
 * The delivery worker: polls the outbox (`webhook_deliveries`) for pending rows, oldest first, and
 * delivers a few at a time. It is independent of the job queue: a slow receiver holds one of its
 * own slots, never a job worker. Any number of dispatchers may run (one per worker process): the
 * conditional claim sends each row at most once.
 *
 * On start (and every few polls) it puts rows left `sending` by a process that died mid-attempt back
 * to pending: our crash is not the receiver's failure, so the event is sent again and the webhook's
 * failure count is not touched (see requeueDeadClaims). The embedded process, the only sender on its
 * database, does so at its start for every claim of another process; otherwise a claim is dead once
 * older than `staleAfterMs`.
 */
export function startWebhookDispatcher(deps: DispatcherDeps, opts: DispatcherOptions = {}): WebhookDispatcher {
  const pollMs = opts.pollMs ?? 1000;
  const batchSize = opts.batchSize ?? 20;
  const concurrency = opts.concurrency ?? 4;
  const staleAfterMs = opts.staleAfterMs ?? deps.config.webhookTimeoutMs + 60_000;
  const inFlight = new Map<string, Promise<void>>();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let polls = 0;
  const soleSender = opts.soleSender ?? deps.config.deployment.mode === 'embedded';

  const sweep = async (atStart: boolean) => {
    const requeued = await requeueDeadClaims(deps.db, {
      claimedBefore: new Date(Date.now() - staleAfterMs),
      ...(atStart && soleSender ? { deadOwnersBut: PROCESS_ID } : {}),
    });
    if (requeued > 0) deps.log.info({ requeued }, 'webhook deliveries cut by a crash are sent again');
  };
  // Before the first send, so a row cut by our crash goes out with the rows committed meanwhile.
  const started = sweep(true).catch((err: Error) =>
    deps.log.warn({ err: err.message }, 'could not requeue webhook deliveries cut by a crash'),
  );

  /** Fills free slots from the outbox; resolves with the number of rows started. */
  const fill = async (): Promise<number> => {
    const free = concurrency - inFlight.size;
    if (free <= 0 || stopped) return 0;
    const rows = await listPendingDeliveries(deps.db, Math.min(batchSize, free + inFlight.size));
    let started = 0;
    for (const row of rows) {
      if (inFlight.size >= concurrency || stopped) break;
      if (inFlight.has(row.id)) continue;
      const p = deliverOne(deps, row)
        .then(() => undefined)
        .catch((err) =>
          deps.log.warn({ err: (err as Error).message, deliveryId: row.id }, 'webhook delivery could not be recorded'),
        )
        .finally(() => {
          inFlight.delete(row.id);
          if (!stopped) void fill().catch(() => undefined);
        });
      inFlight.set(row.id, p);
      started++;
    }
    return started;
  };

  const tick = async () => {
    try {
      if (++polls % 30 === 0) await sweep(false);
      await fill();
    } catch (err) {
      deps.log.warn({ err: (err as Error).message }, 'webhook outbox poll failed');
    }
    if (!stopped) {
      timer = setTimeout(tick, pollMs);
      timer.unref();
    }
  };
  void started.then(tick);

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await Promise.all(inFlight.values());
    },
    async drain() {
      await started;
      while (!stopped) {
        await fill();
        if (inFlight.size > 0) await Promise.race(inFlight.values());
        else if ((await listPendingDeliveries(deps.db, 1)).length === 0) return;
      }
    },
  };
}
