import type { AudioMetadataValue } from '../contract/common.ts';
import type { WorkerDeps } from './deps.ts';

/**
 * BPM and key for a finished separation. Uses the separated drums and bass for tempo and the
 * harmonic stems for key when they exist. Analysis never fails a job: on error the metadata stays
 * null and the reason is logged.
 */
export async function analyzeStems(
  deps: Pick<WorkerDeps, 'engines' | 'log'>,
  mixPath: string,
  files: Record<string, string | undefined>,
  jobId: string,
): Promise<AudioMetadataValue | null> {
  // Key from the harmonic stems (everything but drums), else the instrumental, else the mix.
  const harmonic = files.drums
    ? [files.other, files.bass, files.piano, files.guitar].filter((p): p is string => Boolean(p))
    : [files.instrumental ?? mixPath];
  try {
    return await deps
      .engines()
      .analyze({ mixPath, drumsPath: files.drums, bassPath: files.bass, harmonicPaths: harmonic });
  } catch (err) {
    deps.log.warn({ jobId, err: (err as Error).message }, 'audio analysis failed; audioMetadata stays null');
    return null;
  }
}
