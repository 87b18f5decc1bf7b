import { spawn } from 'node:child_process';
import { YtdlpError } from './ytdlp-errors.ts';

export interface YtdlpProcessOptions {
  ytdlpPath: string;
  /** Hard limit for the whole run; the process group is killed when it passes. */
  timeoutMs: number;
  signal?: AbortSignal;
  /** Environment of the child; default: this process's (tests use it to steer the fake yt-dlp). */
  env?: NodeJS.ProcessEnv;
}

export interface YtdlpRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  /** The last 64 KiB of stderr: enough for the ERROR line and a traceback. */
  stderr: string;
}

const MAX_STDOUT = 64 * 1024 * 1024; // `-J` of a long video with every format is a few MB
const STDERR_TAIL = 64 * 1024;

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    // Negative pid: the whole process group, so ffmpeg or other helpers yt-dlp started die too.
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/**
 * Runs yt-dlp with an argument vector, never through a shell, in its own process group
 * (`detached`) so a timeout or abort can kill it and everything it spawned.
 * Resolves with the exit status and output; rejects only with YtdlpError
 * (not-installed, timeout, aborted, bad-output when stdout overflows).
 */
export function runYtdlp(args: string[], options: YtdlpProcessOptions): Promise<YtdlpRun> {
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) return reject(new YtdlpError('aborted', 'aborted before start'));
    const child = spawn(options.ytdlpPath, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
      env: options.env,
      windowsHide: true,
    });
    const out: Buffer[] = [];
    let outBytes = 0;
    let stderr = '';
    let failure: YtdlpError | null = null;
    const stop = (err: YtdlpError) => {
      failure ??= err;
      killGroup(child.pid);
    };

    const timer = setTimeout(
      () => stop(new YtdlpError('timeout', `yt-dlp did not finish within ${options.timeoutMs} ms`)),
      options.timeoutMs,
    );
    const onAbort = () => stop(new YtdlpError('aborted', 'aborted by the caller'));
    options.signal?.addEventListener('abort', onAbort, { once: true });

    child.stdout.on('data', (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes > MAX_STDOUT)
        return stop(new YtdlpError('bad-output', `yt-dlp wrote more than ${MAX_STDOUT} bytes to stdout`));
      out.push(chunk);
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_TAIL);
    });

    const finish = () => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    };
    child.on('error', (err: NodeJS.ErrnoException) => {
      finish();
      if (err.code === 'ENOENT' || err.code === 'EACCES') {
        reject(
          new YtdlpError(
            'not-installed',
            `yt-dlp could not be started from "${options.ytdlpPath}" (${err.code}). Install or update yt-dlp ` +
              '(https://github.com/yt-dlp/yt-dlp#installation) and point YTDLP_PATH at it.',
          ),
        );
      } else reject(new YtdlpError('crash', `yt-dlp could not be started: ${err.message}`));
    });
    child.on('close', (code, signal) => {
      finish();
      killGroup(child.pid); // leftovers yt-dlp spawned and did not reap
      if (failure) return reject(failure);
      resolve({ code, signal, stdout: Buffer.concat(out).toString('utf8'), stderr });
    });
  });
}
