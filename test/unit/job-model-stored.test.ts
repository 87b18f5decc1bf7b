import { describe, expect, it } from 'vitest';
import { readJobOf } from '../../src/jobs/read-job.ts';
import { separationModelFor } from '../../src/models/registry.ts';
import { newJobRow } from '../../src/store/jobs.ts';

const stemRow = (options: Record<string, unknown>) =>
  newJobRow({
    id: 'job_model0001',
    account_id: 'acc_1',
    kind: 'stem',
    input_json: JSON.stringify({ fileName: 'a.wav', billedSeconds: 10, fileSizeBytes: 100 }),
    options_json: JSON.stringify(options),
    metadata_json: null,
    source_key: 'uploads/x/source',
    duration_seconds: 10,
    credits_required: 10,
    created_at: new Date().toISOString(),
  });

describe('the model a separation job stores (chosen once, at creation)', () => {
  const base = { outputType: 'FOUR_STEMS', quality: 'BEST', outputFormat: 'MP3' };

  it('reads the stored model as it is, whatever the registry would pick today', () => {
    // As if the registry had routed four stems to the six-source model when this job was queued.
    const job = readJobOf(stemRow({ ...base, model: 'htdemucs_6s' }), 'stem');
    expect(separationModelFor('FOUR_STEMS').name).toBe('htdemucs');
    expect(job.options.model).toBe('htdemucs_6s');
  });

  it('reads a job queued before the model was stored as the model the registry picks for its output type', () => {
    expect(readJobOf(stemRow(base), 'stem').options.model).toBe('htdemucs');
    expect(readJobOf(stemRow({ ...base, outputType: 'SIX_STEMS' }), 'stem').options.model).toBe('htdemucs_6s');
  });
});
