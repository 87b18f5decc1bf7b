/** Paths of the system ffmpeg binaries (from Config.ffmpeg); the defaults find them on PATH. */
export interface FfmpegTools {
  ffmpegPath: string;
  ffprobePath: string;
}

export const defaultTools: FfmpegTools = { ffmpegPath: 'ffmpeg', ffprobePath: 'ffprobe' };

/** Sample rate and channel count the separation engine works in. */
export const ENGINE_SAMPLE_RATE = 44_100;
export const ENGINE_CHANNELS = 2;
