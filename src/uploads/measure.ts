import type { UploadDeps } from './deps.ts';
import { requireFfmpeg } from '../domain/tool-missing.ts';
import { ApiError } from '../domain/errors.ts';
import { probeAudio, UnsupportedAudioError } from '../audio/probe.ts';
import { countingRate, measureDecodedLength, UndecodableAudioError } from '../audio/decoded-length.ts';

/** An accepted audio file, measured. */
export interface MeasuredAudio {
  /**
   * What is billed and checked against the limits: the decoded length. When decoding was stopped
   * at `maxSeconds`, the larger of what was counted and the header's claim (either way over the limit).
   */
  durationSeconds: number;
  /** What the container header claims (ffprobe); reported in logs, never billed. */
  headerSeconds: number;
  formatName: string;
  codec: string;
}

/**
 * The one probe-and-reject path for every audio input (signed PUT, multipart upload, `sourceUrl`,
 * video and track downloads): ffprobe decides whether the file is audio at all (by content, never
 * by name), then a streaming decode measures its real length (`measureDecodedLength`), which is
 * what the job is billed for and what the duration limit applies to. Decoding stops once it passes
 * `maxSeconds`. Refusals are ApiErrors whose messages name no server path.
 */
export async function measureAudioOrReject(
  deps: Pick<UploadDeps, 'config' | 'log'>,
  path: string,
  opts: { maxSeconds?: number; signal?: AbortSignal } = {},
): Promise<MeasuredAudio> {
  requireFfmpeg(deps.config);
  let probe: Awaited<ReturnType<typeof probeAudio>>;
  try {
    probe = await probeAudio(path, deps.config.ffmpeg);
  } catch (err) {
    if (err instanceof UnsupportedAudioError) {
      // ffprobe's text can quote the temp file's path; the client sees "the file" instead.
      const reason = err.message.split(path).join('the file');
      throw new ApiError('UNSUPPORTED_FORMAT', `The file is not supported audio: ${reason}.`);
    }
    throw err;
  }
  const maxSeconds = opts.maxSeconds ?? deps.config.limits.maxDurationSeconds;
  let decoded: Awaited<ReturnType<typeof measureDecodedLength>>;
  try {
    decoded = await measureDecodedLength(path, {
      sampleRate: countingRate(probe.sampleRate),
      tools: deps.config.ffmpeg,
      stopAfterSeconds: maxSeconds,
      signal: opts.signal,
    });
  } catch (err) {
    if (err instanceof UndecodableAudioError) {
      deps.log.info(
        { detail: err.detail.split(path).join('<file>'), codec: probe.codec },
        'audio refused: not decodable',
      );
      throw new ApiError(
        'AUDIO_NOT_DECODABLE',
        `The file's header describes ${probe.codec} audio, but ${err.message}; nothing was stored or billed.`,
      );
    }
    throw err;
  }
  const durationSeconds = decoded.complete ? decoded.seconds : Math.max(decoded.seconds, probe.durationSeconds);
  if (Math.abs(durationSeconds - probe.durationSeconds) > 0.5 + 0.02 * durationSeconds) {
    deps.log.info(
      { headerSeconds: probe.durationSeconds, decodedSeconds: durationSeconds, format: probe.formatName },
      'audio header and decoded length differ; the decoded length counts',
    );
  }
  return { durationSeconds, headerSeconds: probe.durationSeconds, formatName: probe.formatName, codec: probe.codec };
}
