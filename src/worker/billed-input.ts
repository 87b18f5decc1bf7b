import { join } from 'node:path';
import { rename } from 'node:fs/promises';
import type { WorkerDeps } from './deps.ts';
import type { JobRow } from '../store/jobs.ts';
import { probeAudio } from '../audio/probe.ts';
import { countingRate, measureDecodedLength } from '../audio/decoded-length.ts';
import { decodeAudio } from '../audio/decode.ts';
import { AudioEncoder } from '../audio/encode.ts';

/**
 * Defence in depth for billing: the audio a job processes is never longer than what it was billed
 * for (`credits_required` seconds), nor than the duration limit. The input was measured by decoding
 * when it was accepted, so this normally finds it within the bill and changes nothing (the cost is
 * one decode pass, about 1 % of a separation). If it is longer (a measurement bypassed, a stored
 * object replaced), the input is cut at the billed length: decoded with the frame count capped in
 * our own code (not by ffmpeg's timestamp-driven `-t`) and re-encoded losslessly (FLAC) in place.
 * Returns the number of seconds kept when it cut, null when the input was within the bill.
 */
export async function limitInputToBill(
  deps: Pick<WorkerDeps, 'config' | 'log'>,
  job: Pick<JobRow, 'id' | 'credits_required'>,
  inputPath: string,
  signal?: AbortSignal,
): Promise<number | null> {
  const maxSeconds = deps.config.limits.maxDurationSeconds;
  const billed = Math.min(job.credits_required ?? maxSeconds, maxSeconds);
  const tools = deps.config.ffmpeg;
  const probe = await probeAudio(inputPath, tools).catch(() => null);
  const sampleRate = countingRate(probe?.sampleRate ?? 0);
  const measured = await measureDecodedLength(inputPath, { sampleRate, tools, stopAfterSeconds: billed, signal });
  if (measured.complete) return null;
  deps.log.warn({ jobId: job.id, billedSeconds: billed }, 'job input decodes longer than billed; cutting it');
  const channels = Math.min(2, Math.max(1, probe?.channels ?? 2));
  const cut = join(inputPath, '..', 'input-billed.flac');
  const encoder = new AudioEncoder(cut, 'flac', { sampleRate, channels, tools, limiter: false });
  try {
    for await (const chunk of decodeAudio(inputPath, {
      sampleRate,
      channels,
      maxFrames: Math.round(billed * sampleRate),
      tools,
      signal,
    })) {
      await encoder.write(chunk);
    }
    await encoder.end();
  } catch (err) {
    encoder.abort();
    throw err;
  }
  await rename(cut, inputPath);
  return billed;
}
