import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config.ts';
import type { Env } from '../../src/config/env.ts';
import { createRuntime, type Runtime, type RuntimeOptions } from '../../src/runtime.ts';
import { buildApp, type AppOptions } from '../../src/app/build-app.ts';
import { createAccount } from '../../src/store/accounts.ts';
import { createApiKey } from '../../src/store/api-keys.ts';
import { freshDatabase, type TestDatabase } from './db.ts';

import { freePort } from '../../support/free-port.ts';

// Shared with the benches (support/).
export { freePort };

export interface TestServer {
  rt: Runtime;
  app: FastifyInstance;
  base: string;
  dataDir: string;
  /** A new account with the given credit and one API key. */
  newAccount(creditSeconds?: number): Promise<{ id: string; key: string }>;
  /** fetch against the API base with an optional Bearer key. */
  api(path: string, init?: RequestInit & { key?: string; json?: unknown }): Promise<Response>;
  close(): Promise<void>;
}

/**
 * Starts the real service on 127.0.0.1 with a fresh database of the given dialect and a temp data
 * directory. `env` overrides configuration exactly as the environment would.
 */
/**
 * One cache of prepared model copies for every test server of a run, as one installation keeps one:
 * each server otherwise prepares its own (seconds of graph rewriting per separation test), and a job's
 * "loading_model" phase would time a first start. A fresh cache is tested in models-read-only.test.ts.
 */
const TEST_CACHE_DIR = join(tmpdir(), `stemforge-test-cache-${process.getuid?.() ?? 0}`);

export async function startTestServer(
  dialect: 'sqlite' | 'postgres' = 'sqlite',
  env: Env = {},
  appOptions: AppOptions = {},
  runtimeOptions: RuntimeOptions = {},
): Promise<TestServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'stemforge-test-'));
  const port = await freePort();
  let db: TestDatabase | undefined;
  if (dialect === 'postgres') db = await freshDatabase('postgres');
  const config = loadConfig({
    STEMFORGE_DATA_DIR: dataDir,
    STEMFORGE_CACHE_DIR: TEST_CACHE_DIR,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    ...(db ? { DATABASE_URL: db.url } : {}),
    ...env,
  });
  // The migrated test schema is reused by the runtime (createRuntime migrates idempotently).
  const rt = await createRuntime(config, { ...runtimeOptions, dbSchema: db?.schema ?? runtimeOptions.dbSchema });
  const app = buildApp(rt, { logger: false, ...appOptions });
  await app.listen({ port, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${port}`;
  return {
    rt,
    app,
    base,
    dataDir,
    async newAccount(creditSeconds = 300) {
      const account = await createAccount(
        rt.db,
        `user-${Math.random().toString(36).slice(2)}@example.com`,
        creditSeconds,
      );
      const { key } = await createApiKey(rt.db, account.id);
      return { id: account.id, key };
    },
    api(path, init = {}) {
      const headers = new Headers(init.headers);
      if (init.key) headers.set('authorization', `Bearer ${init.key}`);
      let body = init.body;
      if (init.json !== undefined) {
        headers.set('content-type', 'application/json');
        body = JSON.stringify(init.json);
      }
      return fetch(path.startsWith('http') ? path : `${base}${path}`, { ...init, headers, body });
    },
    async close() {
      await app.close();
      await rt.close();
      await db?.destroy();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
