import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
// @ts-expect-error plain JavaScript module without declarations (it runs before TypeScript can)
import { PINNED_NODE } from '../bin/node-runtime.mjs';

const exec = promisify(execFile);
const repo = resolve(import.meta.dirname, '..');
const pinned = PINNED_NODE as { version: string; packages: Record<string, { name: string; integrity: string }> };

/** A Node older than the code supports, where this machine has one (Debian 12's is 20). */
function oldNode(): string | undefined {
  for (const candidate of ['/usr/bin/node', '/usr/local/bin/node']) {
    const r = spawnSync(candidate, ['-p', 'process.versions.node'], { encoding: 'utf8' });
    if (r.status === 0 && Number(r.stdout.split('.')[0]) < 22) return candidate;
  }
  return undefined;
}
const old = oldNode();
if (!old) console.warn('front-door tests on an old Node skipped: this machine has no Node older than 22');

/** A copy of the project's entry points (bin/, package.json) in a folder with no runtime installed. */
function bareProject(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sf-front-door-'));
  cpSync(join(repo, 'bin'), join(dir, 'bin'), { recursive: true });
  cpSync(join(repo, 'package.json'), join(dir, 'package.json'));
  return dir;
}

/**
 * Issue 28: the README's commands on a machine whose own Node is too old either run on the
 * project's pinned Node or stop at once with one line naming both versions and the fix: never a
 * crash (better-sqlite3 13 segfaults on Node 20).
 */
describe.skipIf(!old)('on a Node older than 22', () => {
  const dir = bareProject();
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('each entry point stops within seconds with one line naming both Node versions and the fix', async () => {
    const version = spawnSync(old!, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
    for (const args of [
      ['bin/stemforge.mjs', 'serve'],
      ['bin/run-ts.mjs', 'x.ts'],
    ]) {
      const started = Date.now();
      const r = spawnSync(old!, args, { cwd: dir, encoding: 'utf8', timeout: 10_000 });
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(r.status).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain(`this is Node ${version}, and Stemforge needs Node 22 or newer`);
      expect(r.stderr).toMatch(
        /run "npm ci" in .* \(it installs Node 24\.\d+\.\d+ for the project\), or install Node 24 LTS/,
      );
    }
  });

  it("re-runs the command on the project's pinned Node, passing signals and the exit status through", async () => {
    // The pinned runtime as npm ci leaves it; this test's own Node stands in for it.
    mkdirSync(join(dir, 'node_modules', '.stemforge-node', 'bin'), { recursive: true });
    symlinkSync(process.execPath, join(dir, 'node_modules', '.stemforge-node', 'bin', 'node'));
    symlinkSync(join(repo, 'node_modules', 'tsx'), join(dir, 'node_modules', 'tsx'));
    writeFileSync(
      join(dir, 'wait.ts'),
      [
        'const v: string = process.version;',
        "process.on('SIGTERM', () => { console.log('got SIGTERM'); process.exit(7); });",
        "console.log('running on ' + v);",
        'setInterval(() => {}, 1000);',
      ].join('\n'),
    );
    const child = spawn(old!, ['bin/run-ts.mjs', 'wait.ts'], { cwd: dir });
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += String(c);
      if (out.includes('running on')) child.kill('SIGTERM');
    });
    const code = await new Promise((done) => child.on('exit', (c) => done(c)));
    expect(out).toContain(`running on ${process.version}`);
    expect(out).toContain('got SIGTERM');
    expect(code).toBe(7);
  });
});

/** The registry's tarball of the pinned Node, from npm's cache (it is never fetched from the internet here). */
function cachedTarball(work: string): Buffer | undefined {
  const pkg = pinned.packages[`${process.platform}-${process.arch}`];
  if (!pkg) return undefined;
  const r = spawnSync('npm', ['pack', '--offline', '--json', `${pkg.name}@${pinned.version}`], {
    cwd: work,
    encoding: 'utf8',
  });
  if (r.status !== 0) return undefined;
  return readFileSync(join(work, (JSON.parse(r.stdout) as { filename: string }[])[0]!.filename));
}

/** A one-package npm registry on 127.0.0.1 serving `tarball` as the pinned Node package. */
async function localRegistry(tarball: Buffer): Promise<{ url: string; server: Server }> {
  const pkg = pinned.packages[`${process.platform}-${process.arch}`]!;
  const server = createServer((req, res) => {
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    if (req.url === `/${pkg.name}`) {
      const integrity = `sha512-${createHash('sha512').update(tarball).digest('base64')}`;
      const version = {
        name: pkg.name,
        version: pinned.version,
        dist: {
          tarball: `${url}/${pkg.name}.tgz`,
          integrity,
          shasum: createHash('sha1').update(tarball).digest('hex'),
        },
      };
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          name: pkg.name,
          'dist-tags': { latest: pinned.version },
          versions: { [pinned.version]: version },
        }),
      );
    } else if (req.url === `/${pkg.name}.tgz`) {
      res.end(tarball);
    } else {
      res.statusCode = 404;
      res.end('{}');
    }
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/`, server };
}

/** A gzipped tarball holding `package/bin/node`, a script that claims to be the pinned Node. */
async function impostor(work: string): Promise<Buffer> {
  mkdirSync(join(work, 'package', 'bin'), { recursive: true });
  writeFileSync(join(work, 'package', 'bin', 'node'), `#!/bin/sh\necho v${pinned.version}\n`, { mode: 0o755 });
  await exec('tar', ['czf', join(work, 'impostor.tgz'), '-C', work, 'package']);
  return readFileSync(join(work, 'impostor.tgz'));
}

describe('bin/install-node.mjs (against a local registry)', () => {
  const work = mkdtempSync(join(tmpdir(), 'sf-install-node-'));
  const real = cachedTarball(work);
  let registry: { url: string; server: Server } | undefined;
  afterAll(() => {
    registry?.server.close();
    rmSync(work, { recursive: true, force: true });
  });
  const install = (tarball: Buffer, node: string, args: string[], cwd: string) =>
    localRegistry(tarball).then(async (r) => {
      registry?.server.close();
      registry = r;
      // npm_execpath unset: the script runs npm from PATH, as outside an install; its own cache.
      const { npm_execpath: _, ...inherited } = process.env;
      const env = { ...inherited, npm_config_registry: r.url, npm_config_cache: join(work, `cache-${Date.now()}`) };
      return new Promise<{ code: number | null; stdout: string; stderr: string }>((done) =>
        execFile(node, args, { cwd, env, timeout: 120_000 }, (err, stdout, stderr) =>
          done({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        ),
      );
    });

  it('refuses a tarball whose checksum is not the pinned one, installing nothing', async () => {
    const project = bareProject();
    const target = join(project, 'runtime');
    const r = await install(
      await impostor(work),
      process.execPath,
      [join(project, 'bin/install-node.mjs'), '--dir', target],
      project,
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/does not match its pinned checksum: refused/);
    expect(existsSync(target)).toBe(false);
    expect(existsSync(`${target}.partial`)).toBe(false);
    rmSync(project, { recursive: true, force: true });
  });

  it.skipIf(!real)(
    'installs the pinned Node from the registry and checks it runs',
    async () => {
      const project = bareProject();
      const target = join(project, 'runtime');
      const r = await install(
        real!,
        process.execPath,
        [join(project, 'bin/install-node.mjs'), '--dir', target],
        project,
      );
      expect(r.code, r.stderr).toBe(0);
      expect(spawnSync(join(target, 'bin', 'node'), ['--version'], { encoding: 'utf8' }).stdout.trim()).toBe(
        `v${pinned.version}`,
      );
      rmSync(project, { recursive: true, force: true });
    },
    180_000,
  );

  it.skipIf(!real || !old)(
    "as npm's postinstall on an old Node, installs it into node_modules and links node_modules/.bin/node",
    async () => {
      const project = bareProject();
      const r = await install(real!, old!, [join(project, 'bin/install-node.mjs')], project);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/installed Node 24\.\d+\.\d+ for this project/);
      expect(readlinkSync(join(project, 'node_modules', '.bin', 'node'))).toBe('../.stemforge-node/bin/node');
      const linked = spawnSync(join(project, 'node_modules', '.bin', 'node'), ['--version'], { encoding: 'utf8' });
      expect(linked.stdout.trim()).toBe(`v${pinned.version}`);
      rmSync(project, { recursive: true, force: true });
    },
    180_000,
  );

  it('does nothing as a postinstall where this Node is new enough', async () => {
    const project = bareProject();
    const r = spawnSync(process.execPath, [join(project, 'bin/install-node.mjs')], { cwd: project, encoding: 'utf8' });
    expect([r.status, r.stdout, r.stderr]).toEqual([0, '', '']);
    expect(existsSync(join(project, 'node_modules'))).toBe(false);
    rmSync(project, { recursive: true, force: true });
  });
});

beforeAll(() => {
  if (!existsSync(join(repo, 'node_modules', 'tsx'))) throw new Error('run npm ci first');
});
