import { newJobRow, type JobRow } from '../../src/store/jobs.ts';
import { newId } from '../../src/domain/ids.ts';

/**
 * A whole `jobs` row for tests that insert rows directly: a new stem job (src/store/jobs.ts
 * `newJobRow`) of 10 s waiting since now, nothing charged yet, with `over` laid on top.
 */
export function pendingJobRow(accountId: string, over: Partial<JobRow> = {}): JobRow {
  return {
    ...newJobRow({
      id: newId('job'),
      account_id: accountId,
      kind: 'stem',
      input_json: '{}',
      options_json: '{}',
      metadata_json: null,
      source_key: 'uploads/x/source',
      duration_seconds: 10,
      credits_required: 10,
      created_at: new Date().toISOString(),
    }),
    credits_charged: null,
    ...over,
  };
}
