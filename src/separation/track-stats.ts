import { decodeAudio } from '../audio/decode.ts';
import type { FfmpegTools } from '../audio/tools.ts';

export interface TrackStats {
  /** Length in frames at the engine's sample rate. */
  frames: number;
  /** Mean and standard deviation of the mono mix (Demucs' `ref = wav.mean(0)`). */
  mean: number;
  std: number;
  /** Largest absolute sample of either channel (MDX-Net's peak normalisation). */
  peak: number;
}

/**
 * A first, cheap streaming pass over the decoded input (decoding costs about 1 % of separating):
 * Demucs normalises the whole track by the mean and standard deviation of its mono mix before
 * separating (`demucs/separate.py`), and streaming needs those before the first segment. It also
 * yields the exact length, which the segment schedule needs for the last segment, and the peak.
 */
export async function measureTrack(
  path: string,
  opts: { sampleRate: number; tools: FfmpegTools; signal?: AbortSignal },
): Promise<TrackStats> {
  let frames = 0;
  let sum = 0;
  let sumSq = 0;
  let peak = 0;
  for await (const chunk of decodeAudio(path, {
    sampleRate: opts.sampleRate,
    channels: 2,
    tools: opts.tools,
    signal: opts.signal,
  })) {
    const n = chunk.length / 2;
    for (let i = 0; i < n; i++) {
      const m = (chunk[2 * i]! + chunk[2 * i + 1]!) / 2;
      sum += m;
      sumSq += m * m;
      peak = Math.max(peak, Math.abs(chunk[2 * i]!), Math.abs(chunk[2 * i + 1]!));
    }
    frames += n;
  }
  if (frames === 0) return { frames, mean: 0, std: 1, peak };
  const mean = sum / frames;
  // torch.std is the unbiased estimate.
  const variance = frames > 1 ? Math.max(0, (sumSq - frames * mean * mean) / (frames - 1)) : 0;
  return { frames, mean, std: Math.sqrt(variance), peak };
}
