import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { uploadFile } from './helpers/jobs.ts';
import { sharedPath } from '../support/shared.ts';
import { createEngines } from '../src/engines/create-engines.ts';
import type { Engines } from '../src/engines/engines.ts';
import { findJob } from '../src/store/jobs.ts';
import { runJobStage, type Runner } from '../src/worker/run-job.ts';
import { STAGE_HANDLERS } from '../src/worker/stage-handlers.ts';

/**
 * A job runs the model stored with it when it was created: the worker hands that name to the
 * engines, which start a process of that model, and nothing asks the registry again. Here the
 * engines only record which model they were asked for (then fail the attempt).
 */
describe('a queued job runs the model it was created with', () => {
  let s: TestServer;
  const asked: string[] = [];
  const recording = (config: any): Engines => ({
    ...createEngines(config),
    separate: async (req) => {
      asked.push(req.model);
      throw new Error('recorded');
    },
  });
  beforeAll(async () => {
    s = await startTestServer('sqlite', { JOB_MAX_ATTEMPTS: '1' }, {}, { engines: recording });
  });
  afterAll(async () => {
    await s?.close();
  });
  const runner = (): Runner => ({ services: s.rt, handlers: STAGE_HANDLERS, shutdown: new AbortController().signal });

  const newJob = async (outputType: string) => {
    const user = await s.newAccount(300);
    const upload = await uploadFile(s, user.key, sharedPath('audio', 'musdb-falcon69', 'mixture.wav'), 'f.wav');
    const res = await s.api('/v1/jobs', { key: user.key, method: 'POST', json: { uploadKey: upload, outputType } });
    expect(res.status).toBe(201);
    return ((await res.json()) as { id: string }).id;
  };

  /** Rewrites the job's stored options as `change` says, then runs its inference stage. */
  const runWithOptions = async (id: string, change: (options: Record<string, unknown>) => Record<string, unknown>) => {
    const row = await findJob(s.rt.db, id);
    const options = change(JSON.parse(row!.options_json));
    await s.rt.db
      .updateTable('jobs')
      .set({ options_json: JSON.stringify(options) })
      .where('id', '=', id)
      .execute();
    asked.length = 0;
    await runJobStage(runner(), id, 'inference');
  };

  test('the model is stored with the job when it is created', async () => {
    const id = await newJob('FOUR_STEMS');
    const row = await findJob(s.rt.db, id);
    expect(JSON.parse(row!.options_json)).toMatchObject({ outputType: 'FOUR_STEMS', model: 'htdemucs' });
  });

  test('a registry change after the job was queued does not reroute it', async () => {
    // What a registry that served four stems with the six-source model would have stored.
    await runWithOptions(await newJob('FOUR_STEMS'), (o) => ({ ...o, model: 'htdemucs_6s' }));
    expect(asked).toEqual(['htdemucs_6s']);
  });

  test('a job queued before models were stored runs the model its output type had', async () => {
    await runWithOptions(await newJob('VOCALS'), ({ model: _, ...legacy }) => legacy);
    expect(asked).toEqual(['htdemucs']);
  });
});
