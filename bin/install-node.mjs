#!/usr/bin/env node
// Installs the project's pinned Node runtime (bin/node-runtime.mjs) from the npm registry.
//
//   node bin/install-node.mjs            npm's postinstall: only where this Node is too old; puts
//                                        the runtime in node_modules/.stemforge-node and links it
//                                        as node_modules/.bin/node, which npm scripts and npx
//                                        find first on their PATH
//   node bin/install-node.mjs --dir D    installs it into D whatever this Node is (.ci/run, the
//                                        container test's stand-in base image)
//
// The tarball comes through `npm pack`, so it uses npm's registry, proxy and CA settings, and is
// refused unless its sha512 is the pinned one. Plain JavaScript for any Node since 14.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import {
  LOCAL_NODE_DIR,
  LOCAL_NODE_LINK,
  MIN_NODE_MAJOR,
  PINNED_NODE,
  nodeMajor,
  pinnedPackageHere,
  tooOldMessage,
} from './node-runtime.mjs';

function fail(message) {
  throw Object.assign(new Error(message), { stemforge: true });
}

/** Runs npm: the one running this script (npm_execpath) when npm started it, else npm on PATH. */
function npm(args, cwd) {
  const cli = process.env.npm_execpath;
  const [file, argv] = cli?.endsWith('.js') ? [process.execPath, [cli, ...args]] : ['npm', args];
  return execFileSync(file, argv, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Downloads, verifies and unpacks the pinned runtime into `dir`, replacing what was there. */
function installPinnedNode(dir, pkg) {
  const spec = `${pkg.name}@${PINNED_NODE.version}`;
  const work = mkdtempSync(join(tmpdir(), 'stemforge-node-'));
  try {
    let packed;
    try {
      packed = JSON.parse(npm(['pack', spec, '--json', '--pack-destination', work], work));
    } catch (err) {
      const detail = String(err.stderr || err.message)
        .trim()
        .split('\n')
        .pop();
      fail(`could not download ${spec} from the npm registry (${detail})`);
    }
    const file = join(work, packed[0].filename);
    const integrity = `sha512-${createHash('sha512').update(readFileSync(file)).digest('base64')}`;
    if (integrity !== pkg.integrity) fail(`${spec} from the registry does not match its pinned checksum: refused`);
    const staging = `${dir}.partial`;
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging, { recursive: true });
    execFileSync('tar', ['xzf', file, '-C', staging, '--strip-components=1']);
    const found = execFileSync(join(staging, 'bin', 'node'), ['--version'], { encoding: 'utf8' }).trim();
    if (found !== `v${PINNED_NODE.version}`) fail(`${spec} unpacked a Node that reports ${found}: refused`);
    rmSync(dir, { recursive: true, force: true });
    renameSync(staging, dir);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function main() {
  const dirFlag = process.argv.indexOf('--dir');
  if (dirFlag !== -1) {
    const dir = process.argv[dirFlag + 1];
    const pkg = pinnedPackageHere();
    if (!dir) fail('usage: node bin/install-node.mjs [--dir DIR]');
    if (!pkg)
      fail(`the npm registry has no Node ${PINNED_NODE.version} package for ${process.platform}-${process.arch}`);
    installPinnedNode(dir, pkg);
    process.stdout.write(`Node ${PINNED_NODE.version} installed in ${dir}\n`);
  } else if (nodeMajor() < MIN_NODE_MAJOR) {
    const pkg = pinnedPackageHere();
    if (!pkg) fail(tooOldMessage().replace(/^stemforge: /, ''));
    installPinnedNode(LOCAL_NODE_DIR, pkg);
    mkdirSync(dirname(LOCAL_NODE_LINK), { recursive: true });
    rmSync(LOCAL_NODE_LINK, { force: true });
    symlinkSync(relative(dirname(LOCAL_NODE_LINK), join(LOCAL_NODE_DIR, 'bin', 'node')), LOCAL_NODE_LINK);
    process.stdout.write(
      `stemforge: this machine's Node is ${process.versions.node}, older than the ${MIN_NODE_MAJOR} Stemforge needs, so npm ci ` +
        `installed Node ${PINNED_NODE.version} for this project (node_modules/.stemforge-node): npm start, npm test and ` +
        `npx stemforge run on it. The EBADENGINE warnings above are about the machine's Node.\n`,
    );
  }
}

try {
  main();
} catch (err) {
  process.stderr.write(`stemforge: ${err.stemforge ? err.message : err.stack}\n`);
  process.exit(1);
}
