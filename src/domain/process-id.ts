import { randomUUID } from 'node:crypto';

/**
 * This process's name in the database: the owner of the job leases it takes and of the webhook
 * deliveries it claims. A restarted process gets a new one, so what the old one held is told apart.
 */
export const PROCESS_ID = `w_${randomUUID().slice(0, 8)}`;
