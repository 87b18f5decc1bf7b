import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { once } from 'node:events';
import { type FfmpegExit, watchFfmpeg } from './ffmpeg-pipe.ts';
import { defaultTools, ENGINE_CHANNELS, ENGINE_SAMPLE_RATE, type FfmpegTools, resampleFilter } from './tools.ts';
import type { AudioFormat } from '../domain/vocabulary.ts';

export const AUDIO_CONTENT_TYPES: Record<AudioFormat, string> = {
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  flac: 'audio/flac',
};

export interface EncoderOptions {
  sampleRate?: number;
  channels?: number;
  tools?: FfmpegTools;
  /**
   * Clipping policy: a look-ahead peak limiter (ffmpeg `alimiter`, ceiling -0.3 dBFS) so stems whose
   * peaks exceed full scale are limited smoothly instead of hard-clipped by the integer/MP3 encoder.
   * Below the ceiling the signal passes unchanged. On by default.
   */
  limiter?: boolean;
  /** Rate of the written file when it differs from the input's `sampleRate`: resampled with libsoxr. */
  outputSampleRate?: number;
}

export const CODEC_ARGS: Record<AudioFormat, string[]> = {
  // 320 kbps CBR: the highest MP3 bitrate; users of stem services complain about 128 kbps defaults.
  mp3: ['-c:a', 'libmp3lame', '-b:a', '320k', '-f', 'mp3'],
  wav: ['-c:a', 'pcm_s16le', '-f', 'wav'],
  flac: ['-c:a', 'flac', '-sample_fmt', 's16', '-f', 'flac'],
};

/** Streams interleaved float PCM into ffmpeg, which encodes it to a file in the chosen format. */
export class AudioEncoder {
  private readonly child: ChildProcessByStdio<Writable, null, Readable>;
  private readonly ffmpeg: FfmpegExit;

  constructor(
    readonly outPath: string,
    readonly format: AudioFormat,
    opts: EncoderOptions = {},
  ) {
    const tools = opts.tools ?? defaultTools;
    const sampleRate = opts.sampleRate ?? ENGINE_SAMPLE_RATE;
    const channels = opts.channels ?? ENGINE_CHANNELS;
    // latency=1: without it alimiter delays the output by its 5 ms look-ahead and drops the last 5 ms.
    const chain: string[] = [];
    if (opts.outputSampleRate && opts.outputSampleRate !== sampleRate)
      chain.push(resampleFilter(tools, opts.outputSampleRate));
    if (opts.limiter !== false) chain.push('alimiter=limit=0.966:attack=5:release=50:level=disabled:latency=1');
    const filters = chain.length > 0 ? ['-af', chain.join(',')] : [];
    const args = [
      '-nostdin',
      '-v',
      'error',
      '-y',
      '-f',
      'f32le',
      '-ar',
      String(sampleRate),
      '-ac',
      String(channels),
      '-i',
      'pipe:0',
      ...filters,
      ...CODEC_ARGS[format],
      outPath,
    ];
    this.child = spawn(tools.ffmpegPath, args, { stdio: ['pipe', 'ignore', 'pipe'] });
    this.ffmpeg = watchFfmpeg(this.child);
    this.child.stdin.on('error', () => undefined);
  }

  /** Writes interleaved samples, waiting for the pipe to drain (back-pressure keeps memory flat). */
  async write(interleaved: Float32Array): Promise<void> {
    const buf = Buffer.from(interleaved.buffer, interleaved.byteOffset, interleaved.byteLength);
    if (!this.child.stdin.write(buf)) {
      await Promise.race([once(this.child.stdin, 'drain'), this.ffmpeg.exited]);
    }
  }

  /** Closes the input and waits until the file is complete. */
  async end(): Promise<void> {
    this.child.stdin.end();
    const code = await this.ffmpeg.exited;
    if (code !== 0) {
      throw new Error(`ffmpeg could not encode ${this.outPath}: ${this.ffmpeg.stderr().trim() || `exit ${code}`}`);
    }
  }

  abort(): void {
    this.child.kill('SIGKILL');
  }
}
