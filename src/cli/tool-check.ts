import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Config } from '../config.ts';
import { chooseFfmpeg } from '../audio/ffmpeg-choice.ts';

const run = promisify(execFile);

/** What start-up found of the programs and models the service needs, and what a missing one turns off. */
export interface ToolReport {
  /** The configuration with the ffmpeg chosen (src/audio/ffmpeg-choice.ts). */
  config: Config;
  /**
   * Lines for the console: which ffmpeg runs, then one per missing piece. A promise, so that the
   * slower checks (yt-dlp starts Python) overlap the rest of start-up.
   */
  lines: Promise<string[]>;
}

async function runs(program: string, args: string[]): Promise<boolean> {
  return run(program, args, { timeout: 30_000 }).then(
    () => true,
    () => false,
  );
}

/**
 * Chooses the ffmpeg, and lists what is missing with what that turns off: ffmpeg (uploads and
 * jobs, which answer 503 SERVICE_UNAVAILABLE naming it), yt-dlp (video and track imports: 503),
 * and, where this process runs jobs, the voice-cleaning model. Never stops the start: a server
 * without them still serves everything else.
 */
export async function checkTools(
  config: Config,
  opts: { ytdlp: boolean; hasModel?: (name: string) => boolean },
): Promise<ToolReport> {
  const ytdlp = opts.ytdlp ? runs(config.ytdlp.path, ['--version']) : Promise.resolve(true);
  const choice = await chooseFfmpeg(config.ffmpeg, config.cacheDir);
  const lines = ytdlp.then((hasYtdlp) => {
    const missing: string[] = [];
    if (choice.tools.unavailable) {
      missing.push('ffmpeg: uploads and jobs are off (they answer 503 SERVICE_UNAVAILABLE) until it is installed');
    }
    if (!hasYtdlp)
      missing.push('yt-dlp: video and track imports are off (503); install it and set YTDLP_PATH if needed');
    if (opts.hasModel && !opts.hasModel('dfn3')) {
      missing.push(`the dfn3 model: voice cleaning is off; ${config.cliCommand} models pull dfn3 installs it`);
    }
    return [choice.line, ...missing.map((m, i) => `${i === 0 ? 'Missing: ' : '         '}${m}`)];
  });
  return { config: { ...config, ffmpeg: choice.tools }, lines };
}

/** The configuration with the ffmpeg chosen, quietly: for the offline commands (separate, denoise, analyze). */
export async function withChosenFfmpeg(config: Config): Promise<Config> {
  return { ...config, ffmpeg: (await chooseFfmpeg(config.ffmpeg, config.cacheDir)).tools };
}
