import { resolve } from 'node:path';
import type { Env } from '../../src/config/env.ts';
import { startWorkers, type Workers } from '../../src/worker/start.ts';
import { startTestServer, type TestServer } from './server.ts';
import { sharedPath } from '../../support/shared.ts';

/** The FAKE yt-dlp (the video and track sites cannot be reached from here): docs/sources.md. */
export const FAKE_YTDLP = resolve(import.meta.dirname, '../fixtures/fake-yt-dlp');

export interface ImportService {
  s: TestServer;
  workers: Workers;
  user: { id: string; key: string };
}

/** The service with running workers, the fake yt-dlp as downloader, and an account with 300 credits. */
export async function startImportService(env: Env = {}): Promise<ImportService> {
  const s = await startTestServer('sqlite', {
    YTDLP_PATH: FAKE_YTDLP,
    STEMFORGE_MODELS_DIR: sharedPath('models'),
    RATE_LIMIT_PER_MINUTE: '100000',
    ...env,
  });
  const workers = await startWorkers(s.rt);
  return { s, workers, user: await s.newAccount(300) };
}

export async function stopImportService(svc: Partial<ImportService>): Promise<void> {
  await svc.workers?.stop();
  await svc.s?.close();
}
