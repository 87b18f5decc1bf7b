import type { AudioMetadataValue } from '../contract/common.ts';
import type { StoredAnalysisValue } from '../jobs/outputs/job-analysis.ts';
import type { WorkerDeps } from './deps.ts';

export interface StemAnalysis {
  /** The job's `audioMetadata` (BPM, key and their confidences). */
  metadata: AudioMetadataValue;
  /** Beats, downbeats and chords (`jobs/<id>/analysis.json`); null from an engine without them. */
  detail: StoredAnalysisValue | null;
}

/**
 * BPM, key, beats and chords for a finished separation. Uses the separated drums and bass for
 * tempo and beats and the harmonic stems for key and chords when they exist. Analysis never fails a
 * job: on error it is null and the reason is logged.
 */
export async function analyzeStems(
  deps: Pick<WorkerDeps, 'engines' | 'log'>,
  mixPath: string,
  files: Record<string, string | undefined>,
  jobId: string,
): Promise<StemAnalysis | null> {
  // Key from the harmonic stems (everything but drums), else the instrumental, else the mix.
  const harmonic = files.drums
    ? [files.other, files.bass, files.piano, files.guitar].filter((p): p is string => Boolean(p))
    : [files.instrumental ?? mixPath];
  try {
    const { detail, ...metadata } = await deps
      .engines()
      .analyze({ mixPath, drumsPath: files.drums, bassPath: files.bass, harmonicPaths: harmonic });
    return { metadata, detail: detail ?? null };
  } catch (err) {
    deps.log.warn({ jobId, err: (err as Error).message }, 'audio analysis failed; audioMetadata stays null');
    return null;
  }
}
