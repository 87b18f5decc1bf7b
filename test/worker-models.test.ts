import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { dialects, freshDatabase, type TestDatabase } from './helpers/db.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { localModels, workerModels } from '../src/models/availability.ts';
import { requireModel } from '../src/jobs/create/require-model.ts';
import { recordWorkerModels } from '../src/store/worker-models.ts';
import { getBalanceSeconds } from '../src/store/credits.ts';
import { startWorkerPresence } from '../src/worker/presence.ts';
import { ApiError } from '../src/domain/errors.ts';

const silent = pino({ level: 'silent' });

async function until(check: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function refusal(p: Promise<void>): Promise<ApiError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

describe.each(dialects)('scale-out model availability from the workers (%s)', (dialect) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await freshDatabase(dialect);
  });
  afterAll(async () => {
    await db?.destroy();
  });
  const rows = () => db.db.selectFrom('worker_models').selectAll().orderBy('worker_id').orderBy('model').execute();
  afterEach(async () => {
    await db.db.deleteFrom('worker_models').execute();
  });

  test('a worker records its models at start, keeps them fresh, and removes them when it stops', async () => {
    const available = workerModels(db.db);
    expect(await available.has('dfn3')).toBe(false);
    const onDisk = new Set(['htdemucs', 'dfn3']);
    const presence = await startWorkerPresence({
      db: db.db,
      workerId: 'w_alpha',
      hasModel: (name) => onDisk.has(name),
      modelsDir: NO_FOLDER_MODELS,
      log: silent,
      heartbeatMs: 30,
    });
    // Known as soon as the start returns: no heartbeat to wait for.
    expect(await available.has('dfn3')).toBe(true);
    expect(await available.has('htdemucs_6s')).toBe(false);
    expect((await rows()).map((r) => r.model)).toEqual(['dfn3', 'htdemucs']);

    // A model pulled on the worker shows up at the next heartbeat; one removed disappears.
    onDisk.add('htdemucs_6s');
    await until(() => available.has('htdemucs_6s'));
    onDisk.delete('dfn3');
    await until(async () => !(await available.has('dfn3')));

    await presence.stop();
    expect(await rows()).toEqual([]);
    expect(await available.has('htdemucs_6s')).toBe(false);
  });

  test('a worker unseen for longer than the stale window counts for nothing and is pruned by a live one', async () => {
    const available = workerModels(db.db, 60_000);
    const twoMinutesAgo = new Date(Date.now() - 120_000).toISOString();
    await recordWorkerModels(db.db, 'w_dead', ['htdemucs_6s'], twoMinutesAgo, new Date(0).toISOString());
    expect((await rows()).length).toBe(1);
    expect(await available.has('htdemucs_6s')).toBe(false);
    // With a wider window the same row counts: the window, not the row's presence, decides.
    expect(await workerModels(db.db, 600_000).has('htdemucs_6s')).toBe(true);

    const live = await startWorkerPresence({
      db: db.db,
      workerId: 'w_live',
      hasModel: () => false,
      modelsDir: NO_FOLDER_MODELS,
      log: silent,
    });
    expect(await rows()).toEqual([]);
    await live.stop();
  });

  test('two workers: a model is available while either has it', async () => {
    const available = workerModels(db.db);
    const a = await startWorkerPresence({
      db: db.db,
      workerId: 'w_a',
      hasModel: (n) => n === 'dfn3',
      modelsDir: NO_FOLDER_MODELS,
      log: silent,
    });
    const b = await startWorkerPresence({
      db: db.db,
      workerId: 'w_b',
      hasModel: (n) => n === 'dfn3' || n === 'htdemucs_6s',
      modelsDir: NO_FOLDER_MODELS,
      log: silent,
    });
    expect(await available.has('htdemucs_6s')).toBe(true);
    await b.stop();
    expect(await available.has('htdemucs_6s')).toBe(false);
    expect(await available.has('dfn3')).toBe(true);
    await a.stop();
    expect(await available.has('dfn3')).toBe(false);
  });

  test('the refusal names the model, the live workers and how to install it there', async () => {
    const six = await refusal(requireModel(workerModels(db.db), 'htdemucs_6s', 'SIX_STEMS'));
    expect(six.code).toBe('MODEL_NOT_INSTALLED');
    expect(six.message).toBe(
      "SIX_STEMS needs the 'htdemucs_6s' model, which is not installed on any running worker. An operator can add it on the worker machines with: npx stemforge models pull htdemucs_6s --url <URL> --sha256 <HEX>.",
    );
    const dfn3 = await refusal(requireModel(workerModels(db.db), 'dfn3', 'Voice cleaning'));
    expect(dfn3.message).toContain('npx stemforge models pull dfn3.');
    // Embedded: the local answer, worded for this server.
    const local = await refusal(
      requireModel(
        localModels(() => false),
        'htdemucs_6s',
        'SIX_STEMS',
      ),
    );
    expect(local.message).toContain('is not installed on this server. An operator can add it with:');
    await requireModel(
      localModels((n) => n === 'htdemucs_6s'),
      'htdemucs_6s',
      'SIX_STEMS',
    );
  });
});

/** Embedded: this server's own models dir decides, through the real HTTP API. */
/** A models folder with no folder models in it (these tests name the registry's). */
const NO_FOLDER_MODELS = '/nonexistent/stemforge-models';

describe('embedded: jobs needing DeepFilterNet3 are refused when this server lacks it', () => {
  const modelsDir = mkdtempSync(join(tmpdir(), 'sf-no-models-'));
  let s: TestServer;
  let user: { id: string; key: string };
  beforeAll(async () => {
    s = await startTestServer('sqlite', { STEMFORGE_MODELS_DIR: modelsDir, RATE_LIMIT_PER_MINUTE: '100000' });
    user = await s.newAccount(300);
  });
  afterAll(async () => {
    await s?.close();
    rmSync(modelsDir, { recursive: true, force: true });
  });

  test('denoise jobs and denoiseVocals answer 400 MODEL_NOT_INSTALLED naming dfn3, and hold nothing', async () => {
    const denoise = await s.api('/v1/denoise-jobs', {
      key: user.key,
      method: 'POST',
      json: { inputFileName: 'a.wav', inputFilePath: 'upl_none', inputFileSize: 1000, durationSeconds: 6 },
    });
    expect(denoise.status).toBe(400);
    const e1: any = ((await denoise.json()) as any).error;
    expect(e1.code).toBe('MODEL_NOT_INSTALLED');
    expect(e1.message).toContain("'dfn3'");
    expect(e1.message).toContain('not installed on this server');

    const vocals = await s.api('/v1/jobs', {
      key: user.key,
      method: 'POST',
      json: { uploadKey: 'upl_none', outputType: 'VOCALS', denoiseVocals: true },
    });
    expect(vocals.status).toBe(400);
    expect(((await vocals.json()) as any).error.code).toBe('MODEL_NOT_INSTALLED');
    // INSTRUMENTAL has no vocal stem to clean, so the model is not needed: the request goes on to the upload.
    const instrumental = await s.api('/v1/jobs', {
      key: user.key,
      method: 'POST',
      json: { uploadKey: 'upl_none', outputType: 'INSTRUMENTAL', denoiseVocals: true },
    });
    expect(((await instrumental.json()) as any).error.code).toBe('UPLOAD_NOT_FOUND');
    expect(await getBalanceSeconds(s.rt.db, user.id)).toBe(300);
  });
});
