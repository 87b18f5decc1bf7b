import { ApiError } from './errors.ts';

/** The 503 for a request that needs a program this server lacks; it names the program, never a path. */
export function toolMissingError(tool: 'ffmpeg' | 'ffprobe'): ApiError {
  return new ApiError(
    'SERVICE_UNAVAILABLE',
    `This server has no ${tool}, which uploads and jobs need: they are off until its operator installs it.`,
    { tool },
  );
}

/** Refuses an upload or a job while start-up found no usable ffmpeg (src/audio/ffmpeg-choice.ts). */
export function requireFfmpeg(config: { ffmpeg: { unavailable?: boolean } }): void {
  if (config.ffmpeg.unavailable) throw toolMissingError('ffmpeg');
}
