import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { defaultTools, type FfmpegTools, ToolMissingError } from './tools.ts';
import { scrubInternals } from '../domain/client-message.ts';

const run = promisify(execFile);

export interface ProbeResult {
  /** ffprobe's container name, e.g. `mp3`, `wav`, `mov,mp4,m4a,3gp,3g2,mj2`. */
  formatName: string;
  codec: string;
  durationSeconds: number;
  sampleRate: number;
  channels: number;
  bitRate: number | null;
}

/** The file could not be read as audio: not a media file, or one without an audio stream. */
export class UnsupportedAudioError extends Error {}

/**
 * Probes a file with ffprobe. Validation is by content, never by file name: a text file named
 * `song.mp3` is rejected here.
 */
export async function probeAudio(path: string, tools: FfmpegTools = defaultTools): Promise<ProbeResult> {
  let stdout: string;
  try {
    ({ stdout } = await run(
      tools.ffprobePath,
      ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', '-select_streams', 'a:0', path],
      { maxBuffer: 4 * 1024 * 1024, timeout: 60_000 },
    ));
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: string };
    if (e.code === 'ENOENT') throw new ToolMissingError('ffprobe');
    // ffprobe names the file it read (our temp path) at the start of its message: only the reason is kept.
    const reason = (e.stderr ?? e.message).trim().split('\n', 1)[0]!.replaceAll(path, 'input');
    throw new UnsupportedAudioError(`not a readable audio file: ${scrubInternals(reason)}`);
  }
  const info = JSON.parse(stdout) as {
    format?: { format_name?: string; duration?: string; bit_rate?: string };
    streams?: Array<{ codec_name?: string; sample_rate?: string; channels?: number; duration?: string }>;
  };
  const stream = info.streams?.[0];
  if (!stream || !info.format) throw new UnsupportedAudioError('the file has no audio stream');
  const duration = Number(info.format.duration ?? stream.duration);
  if (!Number.isFinite(duration) || duration <= 0)
    throw new UnsupportedAudioError('the audio has no readable duration');
  // Image and text "formats" that ffprobe can open are not audio even with a stream.
  if (/^(image2|png_pipe|jpeg_pipe|tty|gif)/.test(info.format.format_name ?? '')) {
    throw new UnsupportedAudioError(`unsupported container ${info.format.format_name}`);
  }
  return {
    formatName: info.format.format_name ?? 'unknown',
    codec: stream.codec_name ?? 'unknown',
    durationSeconds: duration,
    sampleRate: Number(stream.sample_rate ?? 0),
    channels: stream.channels ?? 0,
    bitRate: info.format.bit_rate ? Number(info.format.bit_rate) : null,
  };
}
