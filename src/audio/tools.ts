/** Paths of the system ffmpeg binaries (from Config.ffmpeg); the defaults find them on PATH. */
export interface FfmpegTools {
  ffmpegPath: string;
  ffprobePath: string;
}

export const defaultTools: FfmpegTools = { ffmpegPath: 'ffmpeg', ffprobePath: 'ffprobe' };

/** Default rate and channel count of decoding and encoding; the separation engine passes its model's rate (model registry). */
export const ENGINE_SAMPLE_RATE = 44_100;
export const ENGINE_CHANNELS = 2;
