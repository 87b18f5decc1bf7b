import { type ChildProcess, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { type FfmpegTools, ToolMissingError } from './tools.ts';

/** ffmpeg's stderr is kept up to this many characters: its first lines say what went wrong. */
const STDERR_LIMIT = 8192;

export interface FfmpegExit {
  /** Resolves with the exit code once ffmpeg has closed its pipes; rejects when it could not start. */
  exited: Promise<number | null>;
  /** What ffmpeg wrote to stderr so far (bounded). May name files: for logs and errors, never a client. */
  stderr(): string;
}

/**
 * Watches a spawned ffmpeg: collects the start of its stderr and its exit code. The promise never
 * rejects unobserved, so a caller that stops reading early (a limit reached) leaves no stray error.
 */
export function watchFfmpeg(child: ChildProcess): FfmpegExit {
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    if (stderr.length < STDERR_LIMIT) stderr += d.toString();
  });
  const exited = new Promise<number | null>((resolve, reject) => {
    // Not found: the tool is missing (a 503 for a request), not a fault in this file's handling.
    child.on('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'ENOENT' ? new ToolMissingError('ffmpeg') : err),
    );
    child.on('close', (code) => resolve(code));
  });
  exited.catch(() => undefined);
  return { exited, stderr: () => stderr };
}

/** Runs ffmpeg with `args` writing its output to `pipe:1`; the caller reads `stdout` and must `stop()` it. */
export function readFromFfmpeg(
  tools: FfmpegTools,
  args: string[],
  signal?: AbortSignal,
): FfmpegExit & { stdout: Readable; stop(): void } {
  const child = spawn(tools.ffmpegPath, args, { stdio: ['ignore', 'pipe', 'pipe'], signal });
  return {
    ...watchFfmpeg(child),
    stdout: child.stdout,
    /** Kills ffmpeg if it still runs (the caller read what it needed, or gave up). */
    stop: () => {
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}
