import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort, startTestServer, type TestServer } from './helpers/server.ts';
import { commitFinishedJob } from './helpers/finished-job.ts';
import { sweepStartupLeftovers } from '../src/startup-sweep.ts';

const repo = resolve(import.meta.dirname, '..');

/** `stemforge serve` as a real child process; resolves with its first-start API key once it listens. */
function startServe(env: Record<string, string>): Promise<{ child: ChildProcess; key: string | undefined }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [join(repo, 'bin/stemforge.mjs'), 'serve'], {
      cwd: repo,
      env: { ...process.env, ...env, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('Stemforge listening')) resolvePromise({ child, key: /API key: (\S+)/.exec(out)?.[1] });
    });
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => reject(new Error(`serve exited early (${code}): ${out}`)));
  });
}

async function until(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

const partFiles = async (dataDir: string) =>
  (await readdir(join(dataDir, 'tmp')).catch(() => [] as string[])).filter((n) => n.endsWith('.part'));

describe('start-up sweep after kill -9 (real processes, embedded)', () => {
  let dataDir: string;
  let child: ChildProcess | undefined;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'stemforge-sweep-'));
  });
  afterEach(() => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  test('a half-received upload body and a job work folder left by a killed process are removed on the next start', async () => {
    const port = await freePort();
    const env = { STEMFORGE_DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1' };
    const first = await startServe(env);
    child = first.child;
    const api = `http://127.0.0.1:${port}/v1`;
    const grant: any = await (
      await fetch(`${api}/upload`, {
        method: 'POST',
        headers: { authorization: `Bearer ${first.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ filename: 'song.wav' }),
      })
    ).json();
    // A PUT that sends 256 KiB and then never finishes: the body sits in data/tmp/in_*.part.
    const put = fetch(grant.uploadUrl, {
      method: 'PUT',
      headers: { 'content-type': 'audio/wav' },
      body: new ReadableStream({
        start(c) {
          c.enqueue(new Uint8Array(256 * 1024));
        },
      }),
      duplex: 'half',
    } as RequestInit);
    put.catch(() => undefined);
    await until(async () => (await partFiles(dataDir)).length === 1);
    // What an attempt's work folder holds mid-job (run-job.ts names it <job>-<stage>-<attempt>).
    const work = join(dataDir, 'work', 'job_0mfz1q2ab000AbCdEfGhIjKl-inference-1');
    await mkdir(join(work, 'out'), { recursive: true });
    await writeFile(join(work, 'input'), Buffer.alloc(1024));
    // Not ours to remove: names the service never creates.
    await writeFile(join(dataDir, 'tmp', 'notes.txt'), 'keep');
    await mkdir(join(dataDir, 'work', 'operator-scratch'), { recursive: true });

    child.kill('SIGKILL');
    await new Promise((r) => child!.once('exit', r));
    expect(await partFiles(dataDir)).toHaveLength(1);
    expect(existsSync(work)).toBe(true);

    child = (await startServe(env)).child;
    expect(await partFiles(dataDir)).toHaveLength(0);
    expect(existsSync(work)).toBe(false);
    expect(existsSync(join(dataDir, 'tmp', 'notes.txt'))).toBe(true);
    expect(existsSync(join(dataDir, 'work', 'operator-scratch'))).toBe(true);
  });
});

describe('start-up sweep rules', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer('sqlite');
  });
  afterAll(async () => {
    await s?.close();
  });

  const makeWorkDir = async (name: string) => {
    await mkdir(join(s.dataDir, 'work', name), { recursive: true });
    await writeFile(join(s.dataDir, 'work', name, 'input'), 'x');
    return join(s.dataDir, 'work', name);
  };
  const makeTemp = async (name: string, ageMs: number) => {
    await mkdir(join(s.dataDir, 'tmp'), { recursive: true });
    const path = join(s.dataDir, 'tmp', name);
    await writeFile(path, 'x');
    const t = new Date(Date.now() - ageMs);
    await utimes(path, t, t);
    return path;
  };

  test('a folder of a job running in this process is kept', async () => {
    const running = await makeWorkDir('job_0mfz1q2ab001Running0000-inference-2');
    const orphan = await makeWorkDir('job_0mfz1q2ab002Orphan00000-download-1');
    const r = await sweepStartupLeftovers(s.rt, {
      mode: 'embedded',
      activeWorkDirs: new Set(['job_0mfz1q2ab001Running0000-inference-2']),
    });
    expect(r.workDirs).toEqual(['job_0mfz1q2ab002Orphan00000-download-1']);
    expect(existsSync(running)).toBe(true);
    expect(existsSync(orphan)).toBe(false);
    await rm(running, { recursive: true });
  });

  test('scale-out: a folder whose job holds a live lease elsewhere, and a temp file written to lately, are kept', async () => {
    const user = await s.newAccount();
    const live = (await commitFinishedJob(s.rt, user.id, { outcome: 'FAILED' })).job.id;
    const dead = (await commitFinishedJob(s.rt, user.id, { outcome: 'FAILED' })).job.id;
    const lease = (id: string, expires: number) =>
      s.rt.db
        .updateTable('jobs')
        .set({ status: 'PROCESSING', lease_owner: 'w_other', lease_expires_at: new Date(expires).toISOString() })
        .where('id', '=', id)
        .execute();
    await lease(live, Date.now() + 30_000);
    await lease(dead, Date.now() - 30_000);
    const liveDir = await makeWorkDir(`${live}-inference-1`);
    const deadDir = await makeWorkDir(`${dead}-inference-1`);
    const fresh = await makeTemp('in_0mfz1q2ab003Fresh000000.part', 5_000);
    const stale = await makeTemp('src_0mfz1q2ab004Stale000000.part', 2 * 3600_000);

    const r = await sweepStartupLeftovers(s.rt, { mode: 'scale-out' });
    expect(r.workDirs).toEqual([`${dead}-inference-1`]);
    expect(r.tempFiles).toEqual(['src_0mfz1q2ab004Stale000000.part']);
    expect(existsSync(liveDir)).toBe(true);
    expect(existsSync(deadDir)).toBe(false);
    expect(existsSync(fresh)).toBe(true);
    expect(existsSync(stale)).toBe(false);

    // Embedded: this process alone owns the folder, so everything of ours left there is an orphan.
    const all = await sweepStartupLeftovers(s.rt, { mode: 'embedded' });
    expect(all.workDirs).toEqual([`${live}-inference-1`]);
    expect(all.tempFiles).toEqual(['in_0mfz1q2ab003Fresh000000.part']);
  });
});
