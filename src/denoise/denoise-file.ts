import { rm } from 'node:fs/promises';
import { decodeAudio } from '../audio/decode.ts';
import { AudioEncoder } from '../audio/encode.ts';
import type { AudioFormat } from '../domain/vocabulary.ts';
import { probeAudio } from '../audio/probe.ts';
import { defaultTools, type FfmpegTools } from '../audio/tools.ts';
import type { WindowingOptions } from './channel-enhancer.ts';
import type { Denoiser } from './denoiser.ts';

export interface DenoiseFileOptions {
  inputPath: string;
  outputPath: string;
  format: AudioFormat;
  onProgress?: (fraction: number) => void;
  signal?: AbortSignal;
  tools?: FfmpegTools;
  windowing?: WindowingOptions;
  /** Most noise reduction allowed, dB (see ChannelOptions); undefined = no limit. */
  attenuationLimitDb?: number;
}

export interface DenoiseFileResult {
  durationSeconds: number;
  channels: number;
  /** Rate of the written file: the input's own (see outputRate). */
  sampleRate: number;
}

/** Rates MP3 (MPEG-1/2/2.5 layer III) can carry. */
const MP3_RATES = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000];

/**
 * The output keeps the input's sample rate (a 16 kHz call stays 16 kHz, a 44.1 kHz stem 44.1 kHz).
 * Above the model's rate there is nothing it could restore, so those come back at the model's rate,
 * as do rates MP3 cannot carry.
 */
export function outputRate(inputRate: number, modelRate: number, format: AudioFormat): number {
  if (!(inputRate > 0) || inputRate > modelRate) return modelRate;
  if (format === 'mp3' && !MP3_RATES.includes(inputRate)) return modelRate;
  return inputRate;
}

/**
 * Decodes any file ffmpeg reads, resampled to 48 kHz with libsoxr, cleans each channel independently
 * (mono stays mono; stereo and more are down-mixed by ffmpeg to two channels, so a song's vocal stem
 * keeps its image) and encodes the result resampled back (libsoxr) to the input's rate. Streams in one-second chunks: memory does not grow with
 * the input's length. Runs on the calling thread; DenoiseEngine runs it in a worker thread.
 */
export async function denoiseFileWith(denoiser: Denoiser, opts: DenoiseFileOptions): Promise<DenoiseFileResult> {
  const tools = opts.tools ?? defaultTools;
  const signal = opts.signal;
  signal?.throwIfAborted();
  const probe = await probeAudio(opts.inputPath, tools);
  const channels = Math.min(2, Math.max(1, probe.channels));
  const sr = denoiser.sampleRate;
  const expectedFrames = Math.max(1, probe.durationSeconds * sr);
  const enhancers = Array.from({ length: channels }, () =>
    denoiser.channel({ windowing: opts.windowing, attenuationLimitDb: opts.attenuationLimitDb }),
  );
  const rate = outputRate(probe.sampleRate, sr, opts.format);
  const encoder = new AudioEncoder(opts.outputPath, opts.format, {
    sampleRate: sr,
    outputSampleRate: rate,
    channels,
    tools,
  });
  let framesIn = 0;
  let framesOut = 0;
  const writeOut = async (outs: Float32Array[]) => {
    const n = outs[0]!.length;
    if (n === 0) return;
    const inter = new Float32Array(n * channels);
    for (let c = 0; c < channels; c++) {
      const o = outs[c]!;
      for (let i = 0; i < n; i++) inter[i * channels + c] = o[i]!;
    }
    framesOut += n;
    await encoder.write(inter);
  };
  try {
    const planar = Array.from({ length: channels }, () => new Float32Array(0));
    for await (const chunk of decodeAudio(opts.inputPath, {
      sampleRate: sr,
      channels,
      chunkFrames: sr,
      resampler: 'soxr',
      tools,
      signal,
    })) {
      signal?.throwIfAborted();
      const n = chunk.length / channels;
      for (let c = 0; c < channels; c++) {
        if (planar[c]!.length !== n) planar[c] = new Float32Array(n);
        const p = planar[c]!;
        for (let i = 0; i < n; i++) p[i] = chunk[i * channels + c]!;
      }
      const outs: Float32Array[] = [];
      for (let c = 0; c < channels; c++) outs.push(await enhancers[c]!.push(planar[c]!));
      await writeOut(outs);
      framesIn += n;
      opts.onProgress?.(Math.min(0.99, framesIn / expectedFrames));
    }
    signal?.throwIfAborted();
    const outs: Float32Array[] = [];
    for (const e of enhancers) outs.push(await e.finish());
    await writeOut(outs);
    await encoder.end();
  } catch (err) {
    encoder.abort();
    await rm(opts.outputPath, { force: true });
    throw signal?.aborted ? abortError(signal) : err;
  }
  opts.onProgress?.(1);
  return { durationSeconds: framesOut / sr, channels, sampleRate: rate };
}

function abortError(signal: AbortSignal): Error {
  const reason = signal.reason as unknown;
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  const err = new Error('denoising was cancelled');
  err.name = 'AbortError';
  return err;
}
