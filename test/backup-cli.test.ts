import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { loadConfig } from '../src/config.ts';
import { createRuntime } from '../src/runtime.ts';
import { findAccount } from '../src/store/accounts.ts';
import { stemforge } from './helpers/cli.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

/** docs/deploy.md, "Backups": `stemforge backup` copies a running embedded instance into a folder that restores as a data folder. */
describe('stemforge backup', () => {
  let s: TestServer;
  const dir = mkdtempSync(join(tmpdir(), 'sf-backup-'));
  beforeAll(async () => {
    s = await startTestServer('sqlite');
  });
  afterAll(async () => {
    await s?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('copies the database, the blobs and the signing secret of a running instance, and the copy serves', async () => {
    const account = await s.newAccount(123);
    await s.rt.blobs.put('jobs/job_backup/vocals.mp3', Readable.from([Buffer.from('ID3 stems')]), {
      contentType: 'audio/mpeg',
    });
    const target = join(dir, 'copy');
    const r = await stemforge(['backup', target], { STEMFORGE_DATA_DIR: s.dataDir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/backup written to .*stemforge\.db .*blobs\/, signing-secret/);
    expect(readFileSync(join(target, 'signing-secret'), 'utf8')).toBe(
      readFileSync(join(s.dataDir, 'signing-secret'), 'utf8'),
    );

    // Restored: the copy, used as a data folder, has the account and the blob.
    const rt = await createRuntime(loadConfig({ STEMFORGE_DATA_DIR: target, LOG_LEVEL: 'silent' }));
    try {
      expect((await findAccount(rt.db, account.id))?.id).toBe(account.id);
      expect((await rt.blobs.stat('jobs/job_backup/vocals.mp3'))?.contentType).toBe('audio/mpeg');
      const chunks: Buffer[] = [];
      for await (const c of await rt.blobs.createReadStream('jobs/job_backup/vocals.mp3')) chunks.push(c as Buffer);
      expect(Buffer.concat(chunks).toString()).toBe('ID3 stems');
    } finally {
      await rt.close();
    }
  });

  // Issue 42: "Everything is in the data folder", models pulled into <data>/models included.
  it('keeps <data>/models, where `models pull` writes, unless --no-models says to leave it out', async () => {
    mkdirSync(join(s.dataDir, 'models', 'dfn3'), { recursive: true });
    writeFileSync(join(s.dataDir, 'models', 'dfn3', 'enc.onnx'), 'weights');
    const withModels = join(dir, 'with-models');
    const r = await stemforge(['backup', withModels], { STEMFORGE_DATA_DIR: s.dataDir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/signing-secret, models\/\./);
    expect(readFileSync(join(withModels, 'models', 'dfn3', 'enc.onnx'), 'utf8')).toBe('weights');

    const without = join(dir, 'without-models');
    const skipped = await stemforge(['backup', without, '--no-models'], { STEMFORGE_DATA_DIR: s.dataDir });
    expect(skipped.code, skipped.stderr).toBe(0);
    expect(skipped.stdout).toContain('no models (--no-models');
    expect(existsSync(join(without, 'models'))).toBe(false);
    rmSync(join(s.dataDir, 'models'), { recursive: true, force: true });
  });

  it('refuses a folder that is not empty, and a PostgreSQL instance, saying what to use instead', async () => {
    const busy = join(dir, 'busy');
    rmSync(busy, { recursive: true, force: true });
    await stemforge(['backup', busy], { STEMFORGE_DATA_DIR: s.dataDir });
    writeFileSync(join(busy, 'extra'), 'x');
    const again = await stemforge(['backup', busy], { STEMFORGE_DATA_DIR: s.dataDir });
    expect([again.code, again.stderr]).toEqual([1, `stemforge backup: ${busy} is not empty\n`]);
    const pg = await stemforge(['backup', join(dir, 'pg')], {
      STEMFORGE_DATA_DIR: s.dataDir,
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test',
    });
    expect(pg.code).toBe(1);
    expect(pg.stderr).toMatch(/with PostgreSQL use pg_dump/);
    expect((await stemforge(['backup'], { STEMFORGE_DATA_DIR: s.dataDir })).code).toBe(2);
  });
});
