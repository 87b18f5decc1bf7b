import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createAccount } from '../src/store/accounts.ts';
import { insertJob, type JobRow } from '../src/store/jobs.ts';
import { stageQueueStats, liveWorkerModels } from '../src/store/queue-stats.ts';
import { recordWorkerModels } from '../src/store/worker-models.ts';
import { kindsInStage } from '../src/domain/job-kinds.ts';
import { dialects, freshDatabase, type TestDatabase } from './helpers/db.ts';
import { pendingJobRow } from './helpers/job-row.ts';

/** The queue gauges' reads (`src/store/queue-stats.ts`) on both dialects: counts come back as numbers. */
describe.each(dialects)('queue statistics from the jobs table (%s)', (dialect) => {
  let t: TestDatabase;
  let accountId: string;
  const now = Date.parse('2026-11-26T12:00:00.000Z');
  const at = (offsetSeconds: number) => new Date(now + offsetSeconds * 1000).toISOString();

  const job = async (over: Partial<JobRow>) => {
    await insertJob(
      t.db,
      pendingJobRow(accountId, {
        source_key: 'uploads/x.wav',
        duration_seconds: 7,
        credits_required: 7,
        credits_charged: 0,
        next_attempt_at: at(-10),
        created_at: at(-60),
        ...over,
      }),
    );
  };

  beforeAll(async () => {
    t = await freshDatabase(dialect);
    accountId = (await createAccount(t.db, `queue-${dialect}@example.com`, 300)).id;
    await job({ next_attempt_at: at(-30) }); // the oldest waiting
    await job({ next_attempt_at: at(-5) });
    await job({ next_attempt_at: at(+20) }); // a retry's back-off not over yet
    await job({ status: 'PROCESSING', lease_owner: 'w_1', lease_expires_at: at(+30) });
    await job({ status: 'COMPLETED', completed_at: at(-1) });
    await job({ kind: 'video', source_key: null, next_attempt_at: at(-2) }); // download-stage work
  });
  afterAll(async () => {
    await t?.destroy();
  });

  test('waiting, delayed and active per stage, and since when the oldest has waited', async () => {
    const inference = await stageQueueStats(t.db, kindsInStage('inference'), 'inference', at(0));
    expect(inference).toEqual({ waiting: 2, delayed: 1, active: 1, oldestWaitingSince: at(-30) });
    const download = await stageQueueStats(t.db, kindsInStage('download'), 'download', at(0));
    expect(download).toEqual({ waiting: 1, delayed: 0, active: 0, oldestWaitingSince: at(-2) });
  });

  test('live workers and how many have each model; a stale worker is not counted', async () => {
    await recordWorkerModels(t.db, 'w_a', ['htdemucs', 'dfn3'], at(0), at(-600));
    await recordWorkerModels(t.db, 'w_b', ['htdemucs'], at(0), at(-600));
    await recordWorkerModels(t.db, 'w_old', ['htdemucs'], at(-120), at(-600));
    const live = await liveWorkerModels(t.db, at(-60));
    expect(live.workers).toBe(2);
    expect(Object.fromEntries(live.byModel)).toEqual({ htdemucs: 2, dfn3: 1 });
  });
});
