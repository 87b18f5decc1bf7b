import { useState } from 'preact/hooks';
import type {
  DashboardCreateWebhookRequestBody,
  DashboardWebhookBody,
  DashboardWebhookCreatedBody,
  DashboardWebhookListBody,
  DeliveryListBody,
  WebhookTestResultBody,
} from '../../../src/contract/dashboard.ts';
import { api, messageOf } from '../api.ts';
import { dateTime } from '../format.ts';
import { useData } from '../use-data.ts';
import { ShownOnce } from './secret.tsx';
import { JobLink, shortId } from '../job-label.tsx';
import { deliveryWords, EVENT_WORDS } from '../words.ts';

const EVENTS = ['job.completed', 'job.failed'] as const;

export function Webhooks() {
  const { data, error, reload } = useData<DashboardWebhookListBody>('/webhooks');
  const [created, setCreated] = useState<DashboardWebhookCreatedBody | null>(null);
  const [message, setMessage] = useState('');

  const create = async (e: SubmitEvent) => {
    e.preventDefault();
    const formEl = e.target as HTMLFormElement;
    const form = new FormData(formEl);
    const events = EVENTS.filter((ev) => form.has(ev));
    const body: DashboardCreateWebhookRequestBody = { url: String(form.get('url')), events };
    setMessage('');
    try {
      setCreated(await api<DashboardWebhookCreatedBody>('POST', '/webhooks', body));
      formEl.reset();
      await reload();
    } catch (err) {
      setMessage(messageOf(err));
    }
  };

  return (
    <>
      <h1>Webhooks</h1>
      <p>
        Stemforge POSTs a signed event to these addresses when a job completes or fails. After 5 failed deliveries in a
        row a webhook is disabled; re-enable it here once the receiver works again.
      </p>
      {created && (
        <ShownOnce
          title="Signing secret of the new webhook"
          value={created.secret}
          kept="Stemforge keeps this secret to sign every delivery, but never shows it again."
          onDone={() => setCreated(null)}
        />
      )}
      <form class="card stack" onSubmit={create}>
        <label>
          Webhook address
          <input name="url" type="url" required placeholder="https://example.com/stemforge" />
        </label>
        <fieldset>
          <legend>Events</legend>
          {EVENTS.map((ev) => (
            <label class="inline" key={ev}>
              <input type="checkbox" name={ev} defaultChecked /> {ev}
            </label>
          ))}
        </fieldset>
        <div>
          <button type="submit" class="primary">
            Add webhook
          </button>
        </div>
      </form>
      {(message || error) && (
        <p class="error" role="alert">
          {message || error?.message}
        </p>
      )}
      <ul class="webhooks">
        {data?.webhooks.map((w) => (
          <WebhookItem key={w.id} hook={w} reload={reload} />
        ))}
      </ul>
      {data?.webhooks.length === 0 && <p>No webhooks yet.</p>}
    </>
  );
}

function WebhookItem({ hook: w, reload }: { hook: DashboardWebhookBody; reload: () => Promise<void> }) {
  const [note, setNote] = useState('');
  const [showDeliveries, setShowDeliveries] = useState(false);
  const deliveries = useData<DeliveryListBody>(
    showDeliveries ? `/webhooks/${encodeURIComponent(w.id)}/deliveries` : null,
  );
  const base = `/webhooks/${encodeURIComponent(w.id)}`;

  const act = async (fn: () => Promise<string | undefined>) => {
    setNote('');
    try {
      setNote((await fn()) ?? '');
      await reload();
      if (showDeliveries) await deliveries.reload();
    } catch (err) {
      setNote(messageOf(err));
    }
  };

  return (
    <li class="card webhook" data-webhook={w.id} data-active={String(w.isActive)}>
      <h2 class="mono url">{w.url}</h2>
      <dl class="facts">
        <dt>State</dt>
        <dd>
          {w.isActive ? (
            <span class="badge status-completed">Active</span>
          ) : (
            <span class="badge status-failed">Disabled</span>
          )}
        </dd>
        <dt>Events</dt>
        <dd>{w.events.join(', ')}</dd>
        <dt>Failures in a row</dt>
        <dd data-field="failCount">{w.failCount}</dd>
        <dt>Last error</dt>
        <dd data-field="lastError">{w.lastError ?? '—'}</dd>
        <dt>Last called</dt>
        <dd>{dateTime(w.lastCalledAt)}</dd>
        <dt>Created</dt>
        <dd>{dateTime(w.createdAt)}</dd>
      </dl>
      <div class="actions">
        {(!w.isActive || w.failCount > 0) && (
          <button
            type="button"
            class="primary"
            onClick={() =>
              act(async () => {
                await api('POST', `${base}/enable`);
                return 'Re-enabled.';
              })
            }
          >
            Re-enable
          </button>
        )}
        <button
          type="button"
          onClick={() =>
            act(async () => {
              const r = await api<WebhookTestResultBody>('POST', `${base}/test`);
              return r.error
                ? `Test failed: ${r.error} (${r.durationMs} ms)`
                : `Test delivered: HTTP ${r.statusCode} in ${r.durationMs} ms`;
            })
          }
        >
          Send test event
        </button>
        <button type="button" aria-expanded={showDeliveries} onClick={() => setShowDeliveries(!showDeliveries)}>
          Recent deliveries
        </button>
        <button
          type="button"
          onClick={() =>
            act(async () => {
              if (!confirm(`Delete the webhook ${w.url}?`)) return undefined;
              await api('DELETE', base);
              return undefined;
            })
          }
        >
          Delete
        </button>
      </div>
      <p class="muted" aria-live="polite">
        {note}
      </p>
      {showDeliveries && (
        <div class="table-wrap">
          <table class="cards-on-phone">
            <caption class="sr-only">Recent deliveries to {w.url}</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Event</th>
                <th scope="col">Job</th>
                <th scope="col">What happened</th>
                <th scope="col" class="num">
                  HTTP
                </th>
                <th scope="col" class="num">
                  Duration
                </th>
                <th scope="col">Error</th>
              </tr>
            </thead>
            <tbody>
              {deliveries.data?.deliveries.map((d) => (
                <tr key={d.id}>
                  <td data-label="When">{dateTime(d.createdAt)}</td>
                  <td data-label="Event">{EVENT_WORDS[d.event] ?? d.event}</td>
                  <td data-label="Job">
                    {d.jobId && d.jobTitle !== null && <JobLink id={d.jobId} title={d.jobTitle} />}
                    {d.jobId && d.jobTitle === null && <span class="muted">Deleted job {shortId(d.jobId)}</span>}
                    {!d.jobId && <span class="muted">None (test)</span>}
                  </td>
                  <td data-label="What happened" data-outcome={d.outcome}>
                    {deliveryWords(d)}
                  </td>
                  <td data-label="HTTP" class="num">
                    {d.statusCode ?? '—'}
                  </td>
                  <td data-label="Duration" class="num">
                    {d.durationMs == null ? '—' : `${d.durationMs} ms`}
                  </td>
                  <td data-label="Error">{d.error ?? ''}</td>
                </tr>
              ))}
              {deliveries.data?.deliveries.length === 0 && (
                <tr>
                  <td colSpan={7}>No deliveries yet.</td>
                </tr>
              )}
            </tbody>
          </table>
          {deliveries.error && (
            <p class="error" role="alert">
              {deliveries.error.message}
            </p>
          )}
        </div>
      )}
    </li>
  );
}
