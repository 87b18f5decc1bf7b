import { readFromFfmpeg } from './ffmpeg-pipe.ts';
import { defaultTools, type FfmpegTools, ToolMissingError } from './tools.ts';

export interface DecodedLength {
  /** Seconds of audio the decoder produced (frames / sampleRate). */
  seconds: number;
  frames: number;
  sampleRate: number;
  /** False when counting stopped at `stopAfterSeconds`: the audio is longer than `seconds`. */
  complete: boolean;
}

/** ffmpeg found no decodable audio in a file, or stopped with an error while decoding it. */
export class UndecodableAudioError extends Error {
  constructor(
    message: string,
    /** ffmpeg's first error line, for the log (may name the file: never send it to a client). */
    readonly detail: string,
  ) {
    super(message);
  }
}

/**
 * Measures how long a file really is by decoding it, as the workers will: ffmpeg decodes it to mono
 * 16-bit PCM at `sampleRate` on a pipe and this counts the samples. Container headers (an MP3's
 * Xing/Info frame count, FLAC's STREAMINFO total, a WAV's data size, MP4 and Matroska durations)
 * are never consulted, so a header that lies neither shortens nor lengthens the result, and
 * timestamps cannot either (samples are counted, not pts). Streams: memory stays constant. With
 * `stopAfterSeconds`, decoding stops (ffmpeg is killed) once that much audio has been counted, so a
 * file far over a limit costs no more than the limit's worth of decoding.
 *
 * The selection of the stream is the same as `decodeAudio`'s (ffmpeg's default audio stream), so
 * this length is the length the engines will see.
 */
export async function measureDecodedLength(
  path: string,
  opts: { sampleRate: number; tools?: FfmpegTools; stopAfterSeconds?: number; signal?: AbortSignal },
): Promise<DecodedLength> {
  const tools = opts.tools ?? defaultTools;
  const sampleRate = opts.sampleRate;
  const args = ['-nostdin', '-v', 'error', '-i', path, '-vn', '-sn', '-dn'];
  args.push('-f', 's16le', '-acodec', 'pcm_s16le', '-ac', '1', '-ar', String(sampleRate), 'pipe:1');
  const ffmpeg = readFromFfmpeg(tools, args, opts.signal);
  const stopAfterBytes =
    opts.stopAfterSeconds === undefined ? Number.POSITIVE_INFINITY : Math.ceil(opts.stopAfterSeconds * sampleRate) * 2;
  let bytes = 0;
  let stopped = false;
  try {
    for await (const data of ffmpeg.stdout as AsyncIterable<Buffer>) {
      bytes += data.length;
      if (bytes > stopAfterBytes) {
        stopped = true;
        break;
      }
    }
    if (!stopped) {
      const code = await ffmpeg.exited;
      const detail = ffmpeg.stderr().trim().split('\n')[0] ?? '';
      opts.signal?.throwIfAborted();
      if (code !== 0) {
        throw new UndecodableAudioError('the audio could not be decoded', detail || `ffmpeg exit ${code}`);
      }
      if (bytes < 2) throw new UndecodableAudioError('no audio could be decoded from the file', detail);
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new ToolMissingError('ffmpeg');
    throw err;
  } finally {
    ffmpeg.stop();
  }
  const frames = Math.floor(bytes / 2);
  return { seconds: frames / sampleRate, frames, sampleRate, complete: !stopped };
}

/** The rate to count samples at: the file's own (no resampling), unless ffprobe reported none usable. */
export function countingRate(probedSampleRate: number): number {
  return probedSampleRate >= 1000 && probedSampleRate <= 384_000 ? Math.round(probedSampleRate) : 48_000;
}
