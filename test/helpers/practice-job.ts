import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Runtime } from '../../src/runtime.ts';
import { storeJobAnalysis, type StoredAnalysisValue } from '../../src/jobs/outputs/job-analysis.ts';
import { commitFinishedJob } from './finished-job.ts';

/** `seconds` of stereo MP3 made by ffmpeg from an lavfi source expression (a real encode, decodable by browsers). */
export function mp3Of(source: string, seconds: number): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'practice-'));
  try {
    const out = join(dir, 'a.mp3');
    execFileSync('ffmpeg', [
      '-v',
      'error',
      '-f',
      'lavfi',
      '-i',
      source,
      '-t',
      String(seconds),
      '-ac',
      '2',
      '-ar',
      '44100',
      '-c:a',
      'libmp3lame',
      '-b:a',
      '128k',
      out,
    ]);
    return readFileSync(out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A 120 BPM grid over 8 s in 4/4 (bars at 0, 2, 4, 6 s) and C-G-Am-F, a chord a bar. */
export const GRID: StoredAnalysisValue = {
  beatsPerBar: 4,
  beats: Array.from({ length: 16 }, (_, i) => i * 0.5),
  downbeats: [0, 2, 4, 6],
  beatConfidence: 0.9,
  chords: ['C', 'G', 'Am', 'F'].map((chord, i) => ({ start: i * 2, end: i * 2 + 2, chord, confidence: 0.8 })),
};

/**
 * A completed four-stem job of 8 s whose stems are real MP3s (tones, and clicks on the beats for
 * the drums), with a stored analysis when given: the player's practice features need stems and
 * beats, not a separation, so no model runs.
 */
export async function practiceJob(rt: Runtime, accountId: string, analysis: StoredAnalysisValue | null) {
  const outputs = {
    vocals: mp3Of('sine=frequency=440:sample_rate=44100', 8),
    drums: mp3Of("aevalsrc='if(lt(mod(t,0.5),0.02),sin(2*PI*1000*t),0)':s=44100", 8),
    bass: mp3Of('sine=frequency=110:sample_rate=44100', 8),
    other: mp3Of('sine=frequency=660:sample_rate=44100', 8),
  };
  const { job } = await commitFinishedJob(rt, accountId, {
    outcome: 'COMPLETED',
    outputs,
    options: { outputType: 'FOUR_STEMS', quality: 'FAST', outputFormat: 'MP3', denoiseVocals: false },
  });
  if (analysis) await storeJobAnalysis(rt.blobs, job.id, analysis);
  return job;
}
