import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { Db } from './store/schema.ts';
import type { BlobStore, UnfinishedWrite } from './storage/blob-store.ts';
import { isPathHeld } from './storage/held-paths.ts';
import { UnsupportedStoreCallError } from './storage/errors.ts';
import { findJob, type JobRow } from './store/jobs.ts';
import { parseWorkDirName, CHECKPOINTS_DIR, parseCheckpointDirName } from './worker/work-dir.ts';
import { safeError } from './queue/log-swallowed.ts';
import { sweepOrphanJobFolders } from './jobs/orphan-job-files.ts';

/** What the sweep reads: the data folder, the mode, the job leases, the blob store; it logs what it removed. */
interface SweepDeps {
  config: Pick<Config, 'dataDir' | 'deployment' | 'orphanSweepSeconds'>;
  db: Db;
  blobs: BlobStore;
  log: Logger;
}

/** Request bodies being received (`src/uploads/receive.ts`) and fetched sources (`src/jobs/create/acquire-input.ts`). */
const TEMP_FILE = /^(in|src)_[0-9A-Za-z]+\.part$/;
/**
 * Scale-out: a temp file written to, or an upload begun, within this long may belong to a live
 * request of another process (API processes hold no lease).
 */
const SHARED_TEMP_GRACE_MS = 60 * 60 * 1000;
/** How often the periodic sweep looks for output folders of deleted jobs (a listing of every job folder). */
const JOB_FOLDER_SWEEP_MS = 60 * 60 * 1000;
/** Clock difference tolerated between a worker's claim time and the S3 server's `Initiated`. */
const CLOCK_SKEW_MS = 5_000;

export interface SweepOptions {
  /**
   * `embedded`: this process alone uses the data folder and the store, so everything of ours that
   * this process does not hold is an orphan. `scale-out`: other processes share them, so a work
   * folder or an output upload of a job whose live lease owns it, and a temp file or upload begun
   * within the last hour, are left alone. Default: from the configuration.
   */
  mode?: 'embedded' | 'scale-out';
  now?: Date;
  /**
   * Also remove output folders of jobs that no longer exist (default true). It lists every job
   * folder of the store, so the periodic sweep does it at start and then once an hour.
   */
  jobFolders?: boolean;
}

export interface SweepResult {
  /** Job attempt work folders (`data/work/<job>-<stage>-<attempt>-<crashes>`). */
  workDirs: string[];
  /** Partly received bodies and fetched sources (`data/tmp/*.part`). */
  tempFiles: string[];
  /** Checkpoints of job stages that are over (`data/checkpoints/<job>-<stage>`): the job ended or is gone. */
  checkpoints: string[];
  /** The blob store's unfinished writes: half-copied files in `blobs/tmp`, open S3 multipart uploads. */
  unfinishedWrites: UnfinishedWrite[];
  /** Output folders (`jobs/<id>/`) of jobs that no longer exist, on disk or in S3. */
  orphanJobFolders: string[];
}

/**
 * The orphan sweep, run at start (before any request or job) and every few minutes: removes what a
 * killed process (kill -9, out of memory, power loss) leaves in every temporary place, and only
 * what no one owns: never what this process holds (`src/storage/held-paths.ts`), and in scale-out
 * never what another process's live job lease owns:
 * - job attempt work folders, with the downloaded input and partial stems; a dead worker's folder is
 *   swept once its lease has run out, or at once when the job runs again (the folder's attempt and
 *   crash count are no longer the lease's);
 * - partly received bodies and fetched sources (`data/tmp/in_*.part`, `src_*.part`);
 * - the disk store's half-copied blobs (`blobs/tmp`) and S3 multipart uploads left open (aborted, so
 *   their parts stop being billed);
 * - output folders of jobs that no longer exist (`src/jobs/orphan-job-files.ts`).
 * Only the names this service creates are touched. Returns what it removed, for the log.
 */
export async function sweepStartupLeftovers(deps: SweepDeps, opts: SweepOptions = {}): Promise<SweepResult> {
  const shared = (opts.mode ?? deps.config.deployment.mode) === 'scale-out';
  const now = opts.now ?? new Date();
  const leases = new LeaseReader(deps.db, now);

  const workRoot = join(deps.config.dataDir, 'work');
  const workDirs: string[] = [];
  for (const name of await listNames(workRoot)) {
    const dir = parseWorkDirName(name);
    const path = join(workRoot, name);
    if (!dir || isPathHeld(path)) continue;
    if (shared) {
      const job = await leases.liveJob(dir.jobId);
      // The folder of the attempt the live lease runs now (a name without a crash count predates them).
      if (job && job.attempts === dir.attempts && (dir.crashes === null || dir.crashes === job.crashes)) continue;
    }
    await rm(path, { recursive: true, force: true });
    workDirs.push(name);
  }

  const tmpRoot = join(deps.config.dataDir, 'tmp');
  const tempFiles: string[] = [];
  for (const name of await listNames(tmpRoot)) {
    const path = join(tmpRoot, name);
    if (!TEMP_FILE.test(name) || isPathHeld(path)) continue;
    if (shared) {
      const info = await stat(path).catch(() => null);
      if (!info || now.getTime() - info.mtimeMs < SHARED_TEMP_GRACE_MS) continue;
    }
    await rm(path, { force: true });
    tempFiles.push(name);
  }

  const checkpointRoot = join(deps.config.dataDir, CHECKPOINTS_DIR);
  const checkpoints: string[] = [];
  for (const name of await listNames(checkpointRoot)) {
    const dir = parseCheckpointDirName(name);
    if (!dir) continue;
    // Kept while the job may still run that stage here: waiting, or running (here or elsewhere).
    const job = await findJob(deps.db, dir.jobId);
    if (job && (job.status === 'PENDING' || job.status === 'PROCESSING')) continue;
    await rm(join(checkpointRoot, name), { recursive: true, force: true });
    checkpoints.push(name);
  }

  const unfinishedWrites: UnfinishedWrite[] = [];
  for (const write of await listUnfinishedWrites(deps)) {
    if (shared && (await ownedElsewhere(leases, write, now))) continue;
    await deps.blobs.abortUnfinishedWrite(write);
    unfinishedWrites.push(write);
  }

  const orphanJobFolders = (opts.jobFolders ?? true) ? await sweepOrphanJobFolders(deps) : [];

  if (workDirs.length || tempFiles.length || checkpoints.length || unfinishedWrites.length || orphanJobFolders.length) {
    deps.log.info(
      {
        workDirs: workDirs.length,
        tempFiles: tempFiles.length,
        checkpoints: checkpoints.length,
        unfinishedWrites: unfinishedWrites.length,
        orphanJobFolders: orphanJobFolders.length,
      },
      'removed work folders, temp files, checkpoints and unfinished writes left by a process that died, and files of deleted jobs',
    );
  }
  return { workDirs, tempFiles, checkpoints, unfinishedWrites, orphanJobFolders };
}

/**
 * Sweeps again every ORPHAN_SWEEP_SECONDS while the service runs (in scale-out, what a dead worker
 * left goes at the first sweep after its lease ran out); a failed sweep is logged and retried next time.
 */
export function startOrphanSweeper(deps: SweepDeps): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  const folderEvery = Math.max(1, Math.round(JOB_FOLDER_SWEEP_MS / (deps.config.orphanSweepSeconds * 1000)));
  let sweeps = 0;
  const timer = setInterval(() => {
    const jobFolders = ++sweeps % folderEvery === 0;
    running = sweepStartupLeftovers(deps, { jobFolders }).catch((err: Error) =>
      deps.log.warn({ error: safeError(err) }, 'orphan sweep failed (the next one retries)'),
    );
  }, deps.config.orphanSweepSeconds * 1000);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}

/**
 * The store's unfinished writes; none, with one warning, from a store that cannot list them (an
 * S3-compatible store without ListMultipartUploads says so once, then the adapter stops asking).
 */
async function listUnfinishedWrites(deps: SweepDeps): Promise<UnfinishedWrite[]> {
  try {
    return await deps.blobs.listUnfinishedWrites();
  } catch (err) {
    if (!(err instanceof UnsupportedStoreCallError)) throw err;
    deps.log.warn(
      { store: err.store, call: err.call },
      `${err.message}. Uploads left open by killed processes are not aborted here: give the bucket a lifecycle rule that aborts incomplete multipart uploads`,
    );
    return [];
  }
}

/**
 * Scale-out: whether another live process may own an unfinished write. An output upload
 * (`jobs/<id>/...`) is owned while its job's lease is live and it began under that lease (a dead
 * worker's upload began before the job was claimed again); any other write only by its age.
 */
async function ownedElsewhere(leases: LeaseReader, write: UnfinishedWrite, now: Date): Promise<boolean> {
  const jobId = write.key ? /^jobs\/(job_[0-9A-Za-z]+)\//.exec(write.key)?.[1] : undefined;
  if (jobId === undefined) return now.getTime() - write.startedAt.getTime() < SHARED_TEMP_GRACE_MS;
  const job = await leases.liveJob(jobId);
  if (!job) return false;
  const claimedAt = job.claimed_at ? Date.parse(job.claimed_at) : 0;
  return write.startedAt.getTime() >= claimedAt - CLOCK_SKEW_MS;
}

/** Jobs PROCESSING under a lease that has not run out, read once per sweep. */
class LeaseReader {
  readonly #jobs = new Map<string, JobRow | null>();
  constructor(
    private readonly db: Db,
    private readonly now: Date,
  ) {}

  async liveJob(id: string): Promise<JobRow | null> {
    if (!this.#jobs.has(id)) {
      const job = await findJob(this.db, id);
      const live =
        job?.status === 'PROCESSING' && job.lease_expires_at !== null && job.lease_expires_at > this.now.toISOString();
      this.#jobs.set(id, live ? job : null);
    }
    return this.#jobs.get(id) ?? null;
  }
}

async function listNames(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}
