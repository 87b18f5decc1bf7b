import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';

const repo = resolve(import.meta.dirname, '..', '..');

export interface StemforgeProcess {
  child: ChildProcess;
  /** Everything it printed so far (stdout and stderr). */
  out(): string;
  stop(): Promise<void>;
}

/**
 * Starts `bin/stemforge.mjs <command>` with `env` over this process's, resolving once it prints
 * `ready`; `root` is the checkout whose code runs (another release's: test/helpers/previous-release.ts).
 */
export function startStemforgeProcess(
  command: string[],
  env: Record<string, string>,
  ready: string,
  root = repo,
): Promise<StemforgeProcess> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [join(root, 'bin/stemforge.mjs'), ...command], {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const onData = (d: Buffer) => {
      out += d.toString();
      if (out.includes(ready)) {
        resolvePromise({
          child,
          out: () => out,
          async stop() {
            if (child.exitCode !== null || child.signalCode !== null) return; // exited, or killed
            child.kill('SIGTERM');
            await new Promise((r) => child.once('exit', r));
          },
        });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`${command[0]} exited (${code}): ${out}`)));
  });
}

/**
 * `stemforge serve` (logging warnings only), once it listens; `key` is the API key a first start
 * prints for its admin account (`API key: sk_live_...`), null on a later start.
 */
export async function startServe(env: Record<string, string>): Promise<{ child: ChildProcess; key: string | null }> {
  const serve = await startStemforgeProcess(['serve'], { ...env, LOG_LEVEL: 'warn' }, 'Stemforge listening');
  return { child: serve.child, key: printedApiKey(serve.out()) };
}

/** The API key a first start prints for its admin account (`API key: sk_live_...`), or null. */
export function printedApiKey(out: string): string | null {
  return /API key: (sk_live_\S+)/.exec(out)?.[1] ?? null;
}

/** `stemforge worker` (logging warnings only), once it has started. */
export async function startWorker(env: Record<string, string>): Promise<ChildProcess> {
  return (await startStemforgeProcess(['worker'], { ...env, LOG_LEVEL: 'warn' }, 'Stemforge worker started')).child;
}

/**
 * Runs `bin/stemforge.mjs <command>` with `env` until it exits (killed after `limitMs`): its exit
 * code, what it printed, and how long it took.
 */
export function runStemforgeToExit(
  command: string[],
  env: Record<string, string>,
  limitMs = 90_000,
): Promise<{ code: number | null; out: string; ms: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, [join(repo, 'bin/stemforge.mjs'), ...command], {
    cwd: repo,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const limit = setTimeout(() => child.kill('SIGKILL'), limitMs);
  return new Promise((resolvePromise) =>
    child.on('exit', (code) => {
      clearTimeout(limit);
      resolvePromise({ code, out, ms: performance.now() - started });
    }),
  );
}
