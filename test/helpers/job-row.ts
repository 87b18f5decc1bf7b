import type { JobRow } from '../../src/store/jobs.ts';
import { newId } from '../../src/domain/ids.ts';

/**
 * A whole `jobs` row for tests that insert rows directly: a stem job waiting in the queue since
 * now (runnable, nothing charged), with `over` laid on top.
 */
export function pendingJobRow(accountId: string, over: Partial<JobRow> = {}): JobRow {
  const now = new Date().toISOString();
  return {
    id: newId('job'),
    account_id: accountId,
    kind: 'stem',
    status: 'PENDING',
    progress: 0,
    progress_phase: 'queued',
    input_json: '{}',
    options_json: '{}',
    metadata_json: null,
    source_key: 'uploads/x/source',
    duration_seconds: 10,
    credits_required: 10,
    credits_charged: null,
    error_message: null,
    error_code: null,
    outputs_json: null,
    audio_metadata_json: null,
    attempts: 0,
    crashes: 0,
    next_attempt_at: now,
    lease_owner: null,
    lease_expires_at: null,
    claimed_at: null,
    created_at: now,
    started_at: null,
    completed_at: null,
    expires_at: null,
    name: null,
    ...over,
  };
}
