import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './server.ts';
import { TEST_POSTGRES_URL } from './db.ts';
import { s3Settings, startS3Server, type TestS3Server } from './s3-server.ts';
import { printedApiKey, startStemforgeProcess, type StemforgeProcess } from './stemforge-process.ts';
import { sharedPath } from '../../support/shared.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface ScaleOut {
  api: StemforgeProcess;
  worker: StemforgeProcess;
  /** The API's address. */
  base: string;
  s3: TestS3Server;
  /** The API process's data folder, also a place for the test's own files. */
  apiData: string;
  /** The fleet's PostgreSQL database, for a test that reads what was stored. */
  databaseUrl: string;
  /** The worker's settings, data folder aside: for a test that starts another worker. */
  workerEnv: Record<string, string>;
  /** The admin's API key, printed by the API's first start. */
  key(): string | null;
  /** The settings both processes got (DATABASE_URL included). */
  env: Record<string, string>;
  /**
   * Starts one more worker process of this deployment, with a data folder of its own; `root`: the
   * checkout whose code it runs (another release's, for an upgrade test).
   */
  startWorker(workerEnv?: Record<string, string>, root?: string): Promise<StemforgeProcess>;
  /** Starts one more API process (`serve --no-workers`) on a port of its own: its address. */
  startApi(root?: string): Promise<{ process: StemforgeProcess; base: string }>;
  close(): Promise<void>;
}

export interface ScaleOutOptions {
  /** The checkouts the first API and worker processes run (default: this one). */
  apiRoot?: string;
  workerRoot?: string;
}

/**
 * The scale-out deployment on loopback: a fresh PostgreSQL database, BullMQ on Redis, the test S3
 * server, and separate `serve --no-workers` and `worker` processes. The API host has no models at
 * all (what it accepts must come from the worker's records); the worker reads ../shared/models.
 * `env` goes to both processes, `workerEnv` to the worker alone.
 */
export async function startScaleOut(
  name: string,
  env: Record<string, string> = {},
  workerEnv: Record<string, string> = {},
  roots: ScaleOutOptions = {},
): Promise<ScaleOut> {
  const database = `sf_${name}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  const dirs: string[] = [];
  const dir = () => {
    const d = mkdtempSync(join(tmpdir(), `stemforge-${name}-`));
    dirs.push(d);
    return d;
  };
  const started: { s3?: TestS3Server; api?: StemforgeProcess; worker?: StemforgeProcess } = {};
  const more: StemforgeProcess[] = [];
  const close = async () => {
    await started.api?.stop();
    await started.worker?.stop();
    for (const w of more) await w.stop();
    await started.s3?.close();
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => undefined);
    await admin.end();
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  };
  try {
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    const s3 = await startS3Server(`stemforge-${name}`);
    started.s3 = s3;
    const url = new URL(TEST_POSTGRES_URL);
    url.pathname = `/${database}`;
    const common = {
      STEMFORGE_MODE: 'scale-out',
      DATABASE_URL: url.toString(),
      REDIS_URL,
      REDIS_PREFIX: `sf${name}-${randomBytes(4).toString('hex')}`,
      ...s3Settings(s3),
      STEMFORGE_SIGNING_SECRET: randomBytes(32).toString('hex'),
      RATE_LIMIT_PER_MINUTE: '100000',
      LOG_LEVEL: 'warn',
      ...env,
    };
    const startApi = async (root?: string) => {
      const port = await freePort();
      const data = dir();
      const process = await startStemforgeProcess(
        ['serve', '--no-workers'],
        { ...common, PORT: String(port), STEMFORGE_DATA_DIR: data, STEMFORGE_MODELS_DIR: join(data, 'models') },
        'Stemforge listening',
        root,
      );
      return { process, base: `http://127.0.0.1:${port}`, data };
    };
    const first = await startApi(roots.apiRoot);
    const api = first.process;
    const apiData = first.data;
    started.api = api;
    const startWorker = (extra: Record<string, string> = workerEnv, root?: string) =>
      startStemforgeProcess(
        ['worker'],
        { ...common, ...extra, STEMFORGE_DATA_DIR: dir(), STEMFORGE_MODELS_DIR: sharedPath('models') },
        'Stemforge worker started',
        root,
      );
    const worker = await startWorker(workerEnv, roots.workerRoot);
    started.worker = worker;
    return {
      api,
      worker,
      base: first.base,
      s3,
      apiData,
      databaseUrl: url.toString(),
      workerEnv: { ...common, ...workerEnv, STEMFORGE_MODELS_DIR: sharedPath('models') },
      key: () => printedApiKey(api.out()),
      env: common,
      async startWorker(extra, root) {
        const w = await startWorker(extra, root);
        more.push(w);
        return w;
      },
      async startApi(root) {
        const { process, base } = await startApi(root);
        more.push(process);
        return { process, base };
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
