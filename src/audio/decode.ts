import { readFromFfmpeg } from './ffmpeg-pipe.ts';
import { defaultTools, ENGINE_CHANNELS, ENGINE_SAMPLE_RATE, type FfmpegTools } from './tools.ts';

export interface DecodeOptions {
  sampleRate?: number;
  channels?: number;
  /** Frames per yielded chunk (the last chunk may be shorter). */
  chunkFrames?: number;
  startSeconds?: number;
  durationSeconds?: number;
  /**
   * Yield at most this many frames, then stop ffmpeg. Counted here, sample by sample, so unlike
   * `durationSeconds` (ffmpeg's `-t`, which follows the file's timestamps) no timestamp can stretch it.
   */
  maxFrames?: number;
  tools?: FfmpegTools;
  signal?: AbortSignal;
  /** 'soxr': resample with libsoxr (high quality) instead of ffmpeg's default swr. */
  resampler?: 'soxr';
}

/**
 * Decodes any input ffmpeg reads to interleaved 32-bit float PCM, resampled to `sampleRate`
 * (mono is duplicated to both channels by ffmpeg's `-ac 2` up-mix). Yields fixed-size chunks so a
 * caller never holds the whole file.
 */
export async function* decodeAudio(path: string, opts: DecodeOptions = {}): AsyncGenerator<Float32Array> {
  const sampleRate = opts.sampleRate ?? ENGINE_SAMPLE_RATE;
  const channels = opts.channels ?? ENGINE_CHANNELS;
  const chunkFrames = opts.chunkFrames ?? 65_536;
  const tools = opts.tools ?? defaultTools;
  const args = ['-nostdin', '-v', 'error'];
  if (opts.startSeconds) args.push('-ss', String(opts.startSeconds));
  args.push('-i', path, '-vn', '-sn', '-dn');
  if (opts.durationSeconds !== undefined) args.push('-t', String(opts.durationSeconds));
  if (opts.resampler === 'soxr') args.push('-af', `aresample=${sampleRate}:resampler=soxr`);
  args.push('-f', 'f32le', '-acodec', 'pcm_f32le', '-ac', String(channels), '-ar', String(sampleRate), 'pipe:1');
  const ffmpeg = readFromFfmpeg(tools, args, opts.signal);

  const chunkBytes = chunkFrames * channels * 4;
  const frameBytes = channels * 4;
  let leftBytes = opts.maxFrames === undefined ? Number.POSITIVE_INFINITY : Math.max(0, opts.maxFrames) * frameBytes;
  let pending: Buffer = Buffer.alloc(0);
  try {
    for await (const data of ffmpeg.stdout as AsyncIterable<Buffer>) {
      pending = pending.length ? Buffer.concat([pending, data]) : data;
      while (pending.length >= chunkBytes && leftBytes >= chunkBytes) {
        yield toFloat32(pending.subarray(0, chunkBytes));
        pending = pending.subarray(chunkBytes);
        leftBytes -= chunkBytes;
      }
      if (pending.length >= leftBytes) break;
    }
    if (pending.length >= leftBytes) {
      // The frame limit is reached: what ffmpeg would decode beyond it is never read.
      if (leftBytes > 0) yield toFloat32(pending.subarray(0, leftBytes));
      return;
    }
    const code = await ffmpeg.exited;
    if (code !== 0) throw new Error(`ffmpeg could not decode ${path}: ${ffmpeg.stderr().trim() || `exit ${code}`}`);
    const whole = pending.length - (pending.length % frameBytes);
    if (whole > 0) yield toFloat32(pending.subarray(0, whole));
  } finally {
    ffmpeg.stop();
  }
}

function toFloat32(buf: Buffer): Float32Array {
  // Copy into an aligned buffer: Buffer slices may start at unaligned offsets.
  const out = new Float32Array(buf.length / 4);
  new Uint8Array(out.buffer).set(buf);
  return out;
}

/** Decodes a whole (short) file into planar channels. For tests, analysis of short clips and tools. */
export async function decodeToPlanar(
  path: string,
  opts: DecodeOptions = {},
): Promise<{ channels: Float32Array[]; sampleRate: number }> {
  const channelCount = opts.channels ?? ENGINE_CHANNELS;
  const chunks: Float32Array[] = [];
  let frames = 0;
  for await (const chunk of decodeAudio(path, opts)) {
    chunks.push(chunk);
    frames += chunk.length / channelCount;
  }
  const channels = Array.from({ length: channelCount }, () => new Float32Array(frames));
  let offset = 0;
  for (const chunk of chunks) {
    const n = chunk.length / channelCount;
    for (let i = 0; i < n; i++)
      for (let c = 0; c < channelCount; c++) channels[c]![offset + i] = chunk[i * channelCount + c]!;
    offset += n;
  }
  return { channels, sampleRate: opts.sampleRate ?? ENGINE_SAMPLE_RATE };
}
