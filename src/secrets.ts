import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The HMAC secret for signed URLs: the configured one, else the one persisted in the data
 * directory, else a new random one written there (mode 0600) on first start. Persisting it keeps
 * signed URLs valid across restarts; in scale-out every process must share it (set it in config).
 */
export async function resolveSigningSecret(configured: string | undefined, dataDir: string): Promise<string> {
  if (configured) return configured;
  const file = join(dataDir, 'signing-secret');
  try {
    const existing = (await readFile(file, 'utf8')).trim();
    if (existing.length >= 32) return existing;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  await mkdir(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('hex');
  await writeFile(file, `${secret}\n`, { mode: 0o600, flag: 'wx' }).catch(async (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EEXIST') throw err;
  });
  return (await readFile(file, 'utf8')).trim();
}
