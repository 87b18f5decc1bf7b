import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sharedPath } from '../../support/shared.ts';
import { freePort } from './server.ts';
import { startStemforgeProcess, type StemforgeProcess } from './stemforge-process.ts';

/**
 * An embedded `stemforge serve` of the test's own, in a data folder (`dataDir`, or a new temp one)
 * on a free port, reading ../shared/models: `start` runs one (`root`: another release's checkout,
 * `workers: false` for `--no-workers`), as many times as the test restarts it.
 */
export async function embeddedServer(env: Record<string, string> = {}, dataDir?: string) {
  const dir = dataDir ?? mkdtempSync(join(tmpdir(), 'stemforge-embedded-'));
  const port = await freePort();
  const settings = {
    STEMFORGE_DATA_DIR: dir,
    PORT: String(port),
    STEMFORGE_MODELS_DIR: sharedPath('models'),
    RATE_LIMIT_PER_MINUTE: '100000',
    LOG_LEVEL: 'warn',
    ...env,
  };
  return {
    dataDir: dir,
    base: `http://127.0.0.1:${port}`,
    start(o: { root?: string; workers?: boolean } = {}): Promise<StemforgeProcess> {
      const args = o.workers === false ? ['serve', '--no-workers'] : ['serve'];
      return startStemforgeProcess(args, settings, 'Stemforge listening', o.root);
    },
  };
}
