import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { Db } from './store/schema.ts';
import { findJob } from './store/jobs.ts';

/** What the sweep reads: where the data folder is, the mode, the job leases; it logs what it removed. */
interface SweepDeps {
  config: Pick<Config, 'dataDir' | 'deployment'>;
  db: Db;
  log: Logger;
}

/** A job attempt's work folder (`src/worker/run-job.ts`): `<jobId>-<stage>-<attempt>`. */
const WORK_DIR = /^(job_[0-9A-Za-z]+)-([a-z]+)-(\d+)$/;
/** Request bodies being received (`src/uploads/receive.ts`) and fetched sources (`src/jobs/acquire-input.ts`). */
const TEMP_FILE = /^(in|src)_[0-9A-Za-z]+\.part$/;
/** Scale-out: a temp file written to within this long may belong to a live request of a process sharing the folder. */
const SHARED_TEMP_GRACE_MS = 60 * 60 * 1000;

export interface SweepOptions {
  /**
   * `embedded`: this process alone uses the data folder (the embedded deployment), so every
   * leftover is an orphan. `scale-out`: other API or worker processes may share the folder, so a
   * work folder whose job holds a live lease, and a temp file written to within the last hour,
   * are left alone. Default: from the configuration (Redis configured = scale-out).
   */
  mode?: 'embedded' | 'scale-out';
  /** Work folder names of jobs running in this process now; never removed. */
  activeWorkDirs?: ReadonlySet<string>;
  now?: Date;
}

/**
 * Start-up sweep of what a killed process (kill -9, out of memory, power loss) leaves in the local
 * data folder: job attempt work folders (`data/work/<job>-<stage>-<n>`, with the downloaded input
 * and partial stems) and partially received bodies (`data/tmp/in_*.part`, `src_*.part`). A clean
 * shutdown removes its own; nothing else ever removes these. Only the names this service creates
 * are touched. Returns what it removed, for the log.
 */
export async function sweepStartupLeftovers(
  deps: SweepDeps,
  opts: SweepOptions = {},
): Promise<{ workDirs: string[]; tempFiles: string[] }> {
  const mode = opts.mode ?? deps.config.deployment.mode;
  const now = opts.now ?? new Date();
  const workRoot = join(deps.config.dataDir, 'work');
  const workDirs: string[] = [];
  for (const name of await listNames(workRoot)) {
    const m = WORK_DIR.exec(name);
    const jobId = m?.[1];
    if (jobId === undefined || opts.activeWorkDirs?.has(name)) continue;
    if (mode === 'scale-out' && (await heldElsewhere(deps, jobId, now))) continue;
    await rm(join(workRoot, name), { recursive: true, force: true });
    workDirs.push(name);
  }
  const tmpRoot = join(deps.config.dataDir, 'tmp');
  const tempFiles: string[] = [];
  for (const name of await listNames(tmpRoot)) {
    if (!TEMP_FILE.test(name)) continue;
    const path = join(tmpRoot, name);
    if (mode === 'scale-out') {
      const info = await stat(path).catch(() => null);
      if (!info || now.getTime() - info.mtimeMs < SHARED_TEMP_GRACE_MS) continue;
    }
    await rm(path, { force: true });
    tempFiles.push(name);
  }
  if (workDirs.length || tempFiles.length) {
    deps.log.info(
      { workDirs: workDirs.length, tempFiles: tempFiles.length },
      'removed work folders and temp files left by an earlier process',
    );
  }
  return { workDirs, tempFiles };
}

async function listNames(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

/** A job still PROCESSING under a lease that has not run out may be running in another process. */
async function heldElsewhere(deps: Pick<SweepDeps, 'db'>, jobId: string, now: Date): Promise<boolean> {
  const job = await findJob(deps.db, jobId);
  return job?.status === 'PROCESSING' && job.lease_expires_at !== null && job.lease_expires_at > now.toISOString();
}
