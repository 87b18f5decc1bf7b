import type { Config } from '../config.ts';
import { createRuntime, type Runtime } from '../runtime.ts';
import { startOrphanSweeper, sweepStartupLeftovers } from '../startup-sweep.ts';
import { type DataFolderLock, lockDataFolder } from '../store/data-folder-lock.ts';
import { safeError } from '../queue/log-swallowed.ts';
import { checkDependencies, databaseStartError } from './startup-checks.ts';
import { closeAfterFailedStart } from './shutdown.ts';

export interface StartedRuntime {
  rt: Runtime;
  /** The embedded data folder's lock (src/store/data-folder-lock.ts); none in scale-out. */
  lock: DataFolderLock | undefined;
  sweeper: { stop(): Promise<void> };
  /** Closes the runtime and frees the lock, waiting at most the dependency timeout: a failed start. */
  abandon(): Promise<void>;
}

/**
 * How `serve` and `worker` start, before they take a request or a job: the data folder is locked
 * (embedded: before anything touches it, a second server must not sweep the first's work), the
 * runtime opened, every dependency checked (a failure stops the start naming the setting), what a
 * killed process left swept (a failure there is a warning), and the periodic sweep started.
 */
export async function startRuntime(config: Config): Promise<StartedRuntime> {
  const lock = config.deployment.mode === 'embedded' ? lockDataFolder(config.dataDir) : undefined;
  let opened: Runtime | undefined;
  const abandon = async () => {
    const rt = opened;
    await closeAfterFailedStart(config.dependencyTimeoutMs, rt && (() => rt.close()));
    lock?.release();
  };
  try {
    const rt = await createRuntime(config).catch((err: unknown) => {
      throw databaseStartError(config, err);
    });
    opened = rt;
    await checkDependencies(rt);
    await sweepStartupLeftovers(rt).catch((err: unknown) =>
      rt.log.warn({ error: safeError(err) }, 'the start-up orphan sweep failed (the periodic one retries)'),
    );
    // And every few minutes: what a dead worker of another process left, once its lease has run out.
    return { rt, lock, sweeper: startOrphanSweeper(rt), abandon };
  } catch (err) {
    await abandon();
    throw err;
  }
}
