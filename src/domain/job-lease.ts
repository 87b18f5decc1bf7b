/**
 * How long a worker's hold on a job lasts, and so how soon another worker takes over the job of a
 * worker that died (docs/deploy.md, "A fleet behind a load balancer"). The lease is renewed every
 * `JOB_LEASE_RENEW_MS`, so it runs out 20-30 s after its worker's death.
 */
export const JOB_LEASE_MS = 30_000;
export const JOB_LEASE_RENEW_MS = 10_000;

/**
 * Scale-out: BullMQ's lock on the running job's message, renewed every `QUEUE_LOCK_RENEW_MS`. It
 * outlasts the lease (running out 30-32 s after a death, never before the lease), so the message is
 * given to another worker only once that worker can claim the job; BullMQ's stalled check, every
 * `QUEUE_STALLED_CHECK_MS`, then moves it back to the queue. Together: a dead worker's job is
 * taken within 36 s, within the lease plus 10 s (BullMQ's defaults, a 60 s lock checked every 30 s,
 * took up to 90 s).
 */
export const QUEUE_LOCK_RENEW_MS = 2_000;
export const QUEUE_LOCK_MS = JOB_LEASE_MS + QUEUE_LOCK_RENEW_MS;
export const QUEUE_STALLED_CHECK_MS = 4_000;

/** The documented bound: a killed worker's job is claimed again within this long of its death. */
export const TAKEOVER_BOUND_MS = JOB_LEASE_MS + 10_000;
