import type { DeliveryBody } from '../contract/dashboard.ts';
import type { DeliveryRow } from '../store/webhook-deliveries.ts';

/**
 * What happened to a delivery, in the words a person reads: a `done` row made its one attempt,
 * which a 2xx answer makes a delivery and anything else (another status, a timeout, a network
 * error, an interrupted attempt) a failure.
 */
export function deliveryOutcome(d: Pick<DeliveryRow, 'status' | 'response_status' | 'error'>): DeliveryBody['outcome'] {
  switch (d.status) {
    case 'pending':
      return 'waiting';
    case 'sending':
      return 'sending';
    case 'skipped':
      return 'not-sent';
    case 'done':
      return d.response_status !== null && d.response_status >= 200 && d.response_status < 300 && !d.error
        ? 'delivered'
        : 'failed';
  }
}
