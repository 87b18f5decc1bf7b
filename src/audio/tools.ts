/** The ffmpeg and ffprobe this process runs (Config.ffmpeg, as src/audio/ffmpeg-choice.ts chose them). */
export interface FfmpegTools {
  ffmpegPath: string;
  ffprobePath: string;
  /** Whether this ffmpeg has libsoxr; the bundled WebAssembly build does not, so swr resamples there. Absent: it has. */
  soxr?: boolean;
}

export const defaultTools: FfmpegTools = { ffmpegPath: 'ffmpeg', ffprobePath: 'ffprobe' };

/** Default rate and channel count of decoding and encoding; the separation engine passes its model's rate (model registry). */
export const ENGINE_SAMPLE_RATE = 44_100;
export const ENGINE_CHANNELS = 2;

/**
 * The resampling filter to `rate`: libsoxr where the ffmpeg has it, else swr with a filter twice
 * its default length (a steeper cut at the same 0.97 of Nyquist).
 */
export function resampleFilter(tools: FfmpegTools, rate: number): string {
  return tools.soxr === false ? `aresample=${rate}:filter_size=64` : `aresample=${rate}:resampler=soxr`;
}

/** A program this server needs is not installed (or not where it was configured): a 503, never a 500. */
export class ToolMissingError extends Error {
  constructor(readonly tool: 'ffmpeg' | 'ffprobe') {
    super(`${tool} is not installed`);
  }
}
