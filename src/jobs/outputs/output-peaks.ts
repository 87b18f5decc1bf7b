import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { PEAK_BUCKETS } from '../../contract/dashboard.ts';
import { decodeAudio } from '../../audio/decode.ts';
import type { FfmpegTools } from '../../audio/tools.ts';
import type { BlobStore } from '../../storage/blob-store.ts';
import { BlobNotFoundError } from '../../storage/errors.ts';
import { ApiError } from '../../domain/errors.ts';
import type { JobRow } from '../../store/jobs.ts';
import { readOutputs } from '../read-job.ts';
import { JOB_PRESENTERS } from '../present/job-presenters.ts';

export interface Peaks {
  duration: number;
  peaks: number[];
}

/** Waveforms need no more than this: decoding at 8 kHz is several times cheaper than at 44.1 kHz. */
const PEAK_SAMPLE_RATE = 8000;
/** Max-abs per block of this many frames (2 ms) while streaming; reduced to PEAK_BUCKETS at the end. */
const BLOCK_FRAMES = 16;
const CHANNELS = 2;

/**
 * Reduces streamed interleaved PCM to per-block maxima as it arrives, so memory is bounded by the
 * block count (one number per 2 ms), never by the decoded audio.
 */
export async function peaksOfFile(path: string, tools: FfmpegTools): Promise<Peaks> {
  const blocks: number[] = [];
  let frames = 0;
  let current = 0;
  let inBlock = 0;
  for await (const chunk of decodeAudio(path, { sampleRate: PEAK_SAMPLE_RATE, channels: CHANNELS, tools })) {
    for (let i = 0; i < chunk.length; i += CHANNELS) {
      const v = Math.max(Math.abs(chunk[i]!), Math.abs(chunk[i + 1]!));
      if (v > current) current = v;
      if (++inBlock === BLOCK_FRAMES) {
        blocks.push(current);
        current = 0;
        inBlock = 0;
      }
    }
    frames += chunk.length / CHANNELS;
  }
  if (inBlock > 0) blocks.push(current);
  return { duration: Math.round((frames / PEAK_SAMPLE_RATE) * 1000) / 1000, peaks: toBuckets(blocks, PEAK_BUCKETS) };
}

/** `count` max-abs buckets over the blocks, clamped to 0..1 and rounded to 3 decimals. */
export function toBuckets(blocks: ArrayLike<number>, count: number): number[] {
  const n = blocks.length;
  const out = new Array<number>(count).fill(0);
  if (n === 0) return out;
  for (let j = 0; j < count; j++) {
    const from = Math.floor((j * n) / count);
    const to = Math.max(Math.floor(((j + 1) * n) / count), from + 1);
    let m = 0;
    for (let k = from; k < to && k < n; k++) if (blocks[k]! > m) m = blocks[k]!;
    out[j] = Math.round(Math.min(1, m) * 1000) / 1000;
  }
  return out;
}

const inFlight = new Map<string, Promise<Peaks>>();

/**
 * The peaks of a stored audio blob, computed once and cached as a JSON blob at `cacheKey` (under
 * the job's prefix, so retention removes it with the outputs). Concurrent requests for the same
 * blob in this process share one decode; ffmpeg does the decoding in its own process.
 */
export function storedPeaks(blobs: BlobStore, tools: FfmpegTools, audioKey: string, cacheKey: string): Promise<Peaks> {
  let p = inFlight.get(cacheKey);
  if (!p) {
    p = computeAndCache(blobs, tools, audioKey, cacheKey).finally(() => inFlight.delete(cacheKey));
    inFlight.set(cacheKey, p);
  }
  return p;
}

async function computeAndCache(blobs: BlobStore, tools: FfmpegTools, audioKey: string, cacheKey: string) {
  if (await blobs.stat(cacheKey)) {
    const chunks: Buffer[] = [];
    for await (const c of await blobs.createReadStream(cacheKey)) chunks.push(c as Buffer);
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Peaks;
  }
  const dir = await mkdtemp(join(tmpdir(), 'stemforge-peaks-'));
  try {
    const local = join(dir, 'audio');
    await blobs.downloadToFile(audioKey, local);
    const peaks = await peaksOfFile(local, tools);
    await blobs.put(cacheKey, Readable.from([Buffer.from(JSON.stringify(peaks))]), {
      contentType: 'application/json',
    });
    return peaks;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Waveform peaks of each output of a COMPLETED job, and of the input of a denoise job (the
 * dashboard's A/B player) while it is stored. One at a time: each is an ffmpeg process, and the
 * machine also runs the separation.
 */
export async function jobPeaks(
  deps: { blobs: BlobStore; tools: FfmpegTools },
  row: JobRow,
): Promise<Record<string, Peaks>> {
  if (row.status === 'EXPIRED') throw new ApiError('OUTPUT_EXPIRED');
  const stored = row.status === 'COMPLETED' ? readOutputs(row) : null;
  if (!stored) throw new ApiError('JOB_NOT_COMPLETED');
  const sources: Array<[string, string]> = Object.entries(stored).map(([name, o]) => [name, o.key]);
  if (JOB_PRESENTERS[row.kind].playsInput && row.source_key && (await deps.blobs.stat(row.source_key))) {
    sources.push(['input', row.source_key]);
  }
  const outputs: Record<string, Peaks> = {};
  for (const [name, key] of sources) {
    outputs[name] = await storedPeaks(deps.blobs, deps.tools, key, `jobs/${row.id}/peaks/${name}.json`).catch(
      (err: unknown) => {
        // Retention removed the file between the status read and the decode.
        if (err instanceof BlobNotFoundError) throw new ApiError('OUTPUT_EXPIRED');
        throw err;
      },
    );
  }
  return outputs;
}
