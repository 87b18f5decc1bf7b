import type { ProgressPhase } from '../../domain/vocabulary.ts';
import type { JobRow } from '../../store/jobs.ts';

const PHASE_OF_STATUS: Record<JobRow['status'], ProgressPhase> = {
  PENDING: 'queued',
  PROCESSING: 'separating',
  COMPLETED: 'completed',
  FAILED: 'failed',
  EXPIRED: 'expired',
};

/** `progressPhase` and `errorDetails` of every job kind's detail (`progressFields` in the contract). */
export function presentProgress(row: JobRow) {
  return {
    progressPhase: row.progress_phase ?? PHASE_OF_STATUS[row.status],
    errorDetails:
      row.status === 'FAILED'
        ? { code: row.error_code ?? 'PROCESSING_FAILED', message: row.error_message ?? 'The job failed.' }
        : null,
  };
}
