import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { sharedPath } from '../support/shared.ts';
import { remoteClient, runFastFourStems } from './helpers/jobs.ts';
import { freePort } from './helpers/server.ts';
import { printedApiKey } from './helpers/stemforge-process.ts';

const repo = resolve(import.meta.dirname, '..');

/** Where `program` is on this machine's PATH, or undefined. */
function which(program: string): string | undefined {
  const r = spawnSync('sh', ['-c', `command -v ${program}`], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/**
 * The machine's own Node where it is older than 22 (Debian 12's 20: the Node a newcomer has, on
 * which npm ci installs the pinned 24), else this one. Not the first `node` on PATH: under npm or
 * npx that is node_modules/.bin's, the checkout's pinned Node.
 */
function machineNode(): string {
  for (const candidate of ['/usr/bin/node', '/usr/local/bin/node']) {
    const r = spawnSync(candidate, ['-p', 'process.versions.node'], { encoding: 'utf8' });
    if (r.status === 0 && Number(r.stdout.split('.')[0]) < 22) return candidate;
  }
  return process.execPath;
}

/**
 * A folder to be the whole PATH: node, npm and the core shell tools, linked from this machine; no
 * ffmpeg, ffprobe, yt-dlp, Python, make or C compiler.
 */
function barePath(dir: string): string {
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  symlinkSync(machineNode(), join(bin, 'node'));
  const tools = ['npm', 'npx', 'sh', 'bash', 'env', 'tar', 'gzip', 'cat', 'ls', 'mkdir', 'rm', 'cp', 'mv', 'ln'];
  for (const tool of [...tools, 'chmod', 'sed', 'grep', 'uname', 'dirname', 'basename', 'head', 'tail', 'sort']) {
    const path = which(tool);
    if (path) symlinkSync(path, join(bin, tool));
  }
  return bin;
}

/**
 * Issue 42, done when: a fresh clone on a machine with Node 20 and npm only (no ffmpeg, ffprobe,
 * yt-dlp, Python or compiler on PATH) runs `npm ci && npm start`, then an upload and a FAST job
 * complete. The clone is the committed tree (`git archive HEAD`); npm runs offline, from the cache
 * the checkout's own `npm ci` filled, so nothing leaves the machine.
 */
describe('a fresh clone on a machine with Node and npm only', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sf-fresh-'));
  const clone = join(dir, 'stemforge');
  let server: ChildProcess | undefined;
  afterAll(() => {
    if (server?.pid && server.exitCode === null) process.kill(-server.pid, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('npm ci needs no compiler, and npm start serves an upload and a FAST job with the bundled ffmpeg', async () => {
    const bin = barePath(dir);
    for (const absent of ['ffmpeg', 'ffprobe', 'yt-dlp', 'python3', 'python', 'make', 'cc', 'gcc', 'g++']) {
      expect(existsSync(join(bin, absent)), absent).toBe(false);
    }
    mkdirSync(clone);
    execFileSync('sh', ['-c', `git -C "${repo}" archive --format=tar HEAD | tar -x -C "${clone}"`]);
    const env = { HOME: process.env.HOME ?? dir, PATH: bin, npm_config_offline: 'true', npm_config_fund: 'false' };

    const ci = spawnSync('npm', ['ci', '--no-audit'], { cwd: clone, env, encoding: 'utf8', timeout: 900_000 });
    expect(ci.status, `${ci.stdout}\n${ci.stderr}`).toBe(0);
    expect(ci.stdout + ci.stderr).not.toMatch(/node-gyp|gyp ERR/);

    const port = await freePort();
    server = spawn('npm', ['start'], {
      cwd: clone,
      detached: true,
      env: {
        ...env,
        PORT: String(port),
        LOG_LEVEL: 'warn',
        STEMFORGE_DATA_DIR: join(dir, 'data'),
        // The test servers' cache of prepared model copies (test/helpers/server.ts): the graph
        // rewrite is tested elsewhere, and would only lengthen this run.
        STEMFORGE_CACHE_DIR: join(tmpdir(), `stemforge-test-cache-${process.getuid?.() ?? 0}`),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    await new Promise<void>((done, fail) => {
      const onData = (d: Buffer) => {
        out += d.toString();
        if (out.includes('Stemforge listening')) done();
      };
      server!.stdout!.on('data', onData);
      server!.stderr!.on('data', onData);
      server!.on('exit', (code) => fail(new Error(`npm start exited (${code}):\n${out}`)));
      setTimeout(() => fail(new Error(`npm start did not listen in time:\n${out}`)), 180_000);
    });
    // Start-up says which ffmpeg runs and what is missing, with what that turns off.
    expect(out).toMatch(/^ffmpeg: the bundled ffmpeg 5\.1\.4 as WebAssembly/m);
    expect(out).toMatch(/^Missing: yt-dlp: video and track imports are off/m);

    const key = printedApiKey(out);
    if (!key) throw new Error(`no API key printed:\n${out}`);
    const api = remoteClient(`http://127.0.0.1:${port}`);
    const job = await runFastFourStems(api, key, sharedPath('audio', 'musdb-falcon69', 'mixture.wav'));
    expect(job.status, JSON.stringify(job.errorDetails ?? null)).toBe('COMPLETED');
    const vocals = await fetch(job.outputs.vocals.url);
    expect(vocals.status).toBe(200);
    expect((await vocals.arrayBuffer()).byteLength).toBeGreaterThan(10_000);
  }, 1_800_000);
});
