import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { uploadFile } from './helpers/jobs.ts';
import { sessionClient } from './helpers/dashboard.ts';
import { sharedPath } from '../support/shared.ts';
import { startWorkers, type Workers } from '../src/worker/start.ts';
import { createEngines } from '../src/engines/create-engines.ts';
import type { Config } from '../src/config.ts';
import type { Engines } from '../src/engines/engines.ts';
import { findJob } from '../src/store/jobs.ts';

/**
 * Issue 41: a job cancelled while it still works (here: analysing, after the separation) writes no
 * output afterwards, and once deleted leaves no file in the store. Real separations of a 7 s clip;
 * the engines are the real ones, with their analysis held at a gate the test opens (the cancel and
 * the delete land while the job is `analysing`, every time).
 */
describe('a late cancel: the job’s files follow its row', () => {
  let s: TestServer;
  let workers: Workers;
  let user: { id: string; key: string };
  let uploadKey: string;
  let gate: { reached: () => void; open: Promise<void>; release: () => void } | null = null;
  const analysingGate = () => {
    let reached!: () => void;
    let release!: () => void;
    const isReached = new Promise<void>((r) => (reached = r));
    const open = new Promise<void>((r) => (release = r));
    gate = { reached, open, release };
    return { isReached, release };
  };
  const engines = (config: Config): Engines => {
    const real = createEngines(config);
    return {
      ...real,
      analyze: async (req) => {
        if (gate) {
          gate.reached();
          await gate.open;
        }
        return real.analyze(req);
      },
    };
  };

  beforeAll(async () => {
    s = await startTestServer(
      'sqlite',
      { STEMFORGE_MODELS_DIR: sharedPath('models'), RATE_LIMIT_PER_MINUTE: '100000' },
      {},
      { engines },
    );
    workers = await startWorkers(s.rt);
    user = await s.newAccount(600);
    uploadKey = await uploadFile(s, user.key, sharedPath('audio', 'musdb-falcon69', 'mixture.wav'), 'falcon.wav');
  });
  afterAll(async () => {
    gate?.release();
    await workers?.stop();
    await s?.close();
  });

  const createJob = async () => {
    const res = await s.api('/v1/jobs', {
      method: 'POST',
      key: user.key,
      json: { uploadKey, outputType: 'VOCALS', quality: 'FAST', outputFormat: 'WAV' },
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as { id: string }).id;
  };
  const cancelAndDelete = async (id: string) => {
    expect((await s.api(`/v1/jobs/${id}/cancel`, { method: 'POST', key: user.key })).status).toBe(200);
    const dash = await sessionClient(s, user.id);
    expect((await dash.call('DELETE', `/jobs/${id}`)).status).toBe(204);
    expect(await findJob(s.rt.db, id)).toBeNull();
  };
  /** The attempt is over once the runner removed its work folder (after it cleaned up the store). */
  const attemptEnded = async (id: string) => {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const names = await readdir(join(s.dataDir, 'work')).catch(() => [] as string[]);
      if (!names.some((n) => n.startsWith(id))) return;
      if (Date.now() > deadline) throw new Error('the attempt did not end');
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const filesOf = async (id: string) => [
    ...(await s.rt.blobs.listFolders('jobs/')).filter((f) => f === id),
    ...(await s.rt.blobs.listFolders(`sources/${user.id}/`)).filter((f) => f === id),
  ];

  test('cancelled while analysing, then deleted: no output is written and no file stays', async () => {
    const { isReached, release } = analysingGate();
    const id = await createJob();
    await isReached;
    expect((await findJob(s.rt.db, id))?.progress_phase).toBe('analysing');
    await cancelAndDelete(id);
    release();
    await attemptEnded(id);
    expect(await filesOf(id)).toEqual([]);
  }, 180_000);

  test('a cancel and delete landing while an output is being written: the written file is removed', async () => {
    gate = null;
    const store = s.rt.blobs;
    const realPutFile = store.putFile.bind(store);
    let raced: string | null = null;
    store.putFile = async (key, path, options) => {
      if (raced === null && key.startsWith('jobs/')) {
        raced = key.split('/')[1]!;
        // The worker has looked (the job was its own) and its write is under way: the cancel and the
        // delete land now, before the bytes do.
        await cancelAndDelete(raced);
      }
      return realPutFile(key, path, options);
    };
    try {
      const id = await createJob();
      const deadline = Date.now() + 120_000;
      while (raced === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(raced).toBe(id);
      await attemptEnded(id);
      expect(await filesOf(id)).toEqual([]);
    } finally {
      store.putFile = realPutFile;
    }
  }, 180_000);
});
