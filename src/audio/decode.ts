import { readFromFfmpeg } from './ffmpeg-pipe.ts';
import { defaultTools, ENGINE_CHANNELS, ENGINE_SAMPLE_RATE, type FfmpegTools, resampleFilter } from './tools.ts';

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
  if (opts.resampler === 'soxr') args.push('-af', resampleFilter(tools, sampleRate));
  args.push('-f', 'f32le', '-acodec', 'pcm_f32le', '-ac', String(channels), '-ar', String(sampleRate), 'pipe:1');
  const ffmpeg = readFromFfmpeg(tools, args, opts.signal);

  const chunkBytes = chunkFrames * channels * 4;
  const frameBytes = channels * 4;
  let leftBytes = opts.maxFrames === undefined ? Number.POSITIVE_INFINITY : Math.max(0, opts.maxFrames) * frameBytes;
  // Pipe reads (64 KiB) are copied once, straight into the chunk being filled: gathering them into
  // one Buffer first re-copied the pending bytes at every read (0.5 s per minute of audio here).
  let chunk = new Float32Array(chunkBytes / 4);
  let bytes = new Uint8Array(chunk.buffer);
  let filled = 0;
  try {
    if (leftBytes === 0) return;
    for await (const data of ffmpeg.stdout as AsyncIterable<Buffer>) {
      let read = 0;
      while (read < data.length) {
        const limit = Math.min(chunkBytes, leftBytes);
        const n = Math.min(limit - filled, data.length - read);
        bytes.set(data.subarray(read, read + n), filled);
        filled += n;
        read += n;
        if (filled < limit) continue;
        yield filled === chunkBytes ? chunk : chunk.slice(0, filled / 4);
        leftBytes -= filled;
        // The frame limit is reached: what ffmpeg would decode beyond it is never read.
        if (leftBytes <= 0) return;
        chunk = new Float32Array(chunkBytes / 4);
        bytes = new Uint8Array(chunk.buffer);
        filled = 0;
      }
    }
    const code = await ffmpeg.exited;
    if (code !== 0) throw new Error(`ffmpeg could not decode ${path}: ${ffmpeg.stderr().trim() || `exit ${code}`}`);
    const whole = filled - (filled % frameBytes);
    if (whole > 0) yield chunk.slice(0, whole / 4);
  } finally {
    ffmpeg.stop();
  }
}
