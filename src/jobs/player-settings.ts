import type { z } from 'zod';
import { PlayerSettings } from '../contract/practice.ts';
import { ApiError } from '../domain/errors.ts';
import { findAccountJob } from '../store/jobs.ts';
import { findPlayerSettings, savePlayerSettings } from '../store/player-settings.ts';
import type { Db } from '../store/schema.ts';

type Settings = z.infer<typeof PlayerSettings>;

/** The settings the player saved for this job and account, or null (none yet, or unreadable). */
export async function playerSettingsOf(db: Db, accountId: string, jobId: string): Promise<Settings | null> {
  const json = await findPlayerSettings(db, accountId, jobId);
  if (!json) return null;
  const parsed = PlayerSettings.safeParse(JSON.parse(json));
  return parsed.success ? parsed.data : null;
}

/** Saves the player's settings of one of the account's jobs (another account's job is not found). */
export async function savePlayerSettingsOf(
  db: Db,
  accountId: string,
  jobId: string,
  settings: Settings,
): Promise<void> {
  if (!(await findAccountJob(db, accountId, null, jobId))) throw new ApiError('JOB_NOT_FOUND', `No job '${jobId}'.`);
  await savePlayerSettings(db, {
    accountId,
    jobId,
    json: JSON.stringify(PlayerSettings.parse(settings)),
    at: new Date().toISOString(),
  });
}
