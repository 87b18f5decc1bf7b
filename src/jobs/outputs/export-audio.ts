import { execFile } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { AUDIO_CONTENT_TYPES, CODEC_ARGS } from '../../audio/encode.ts';
import { readFromFfmpeg } from '../../audio/ffmpeg-pipe.ts';
import type { FfmpegTools } from '../../audio/tools.ts';
import type { AudioFormat } from '../../domain/vocabulary.ts';
import { ApiError } from '../../domain/errors.ts';
import type { BlobStore } from '../../storage/blob-store.ts';
import type { JobRow } from '../../store/jobs.ts';
import { jobTitle } from '../present/job-title.ts';
import { readOutputs } from '../read-job.ts';

export interface ExportRequest {
  /** 'mix' (the stems at `gains`), or one output's name. */
  what: string;
  format: AudioFormat;
  /** 0.5-1.5, pitch kept; and semitones, tempo kept. */
  tempo: number;
  pitch: number;
  /** For a mix: each stem's gain as heard (volume, mute, solo); a stem left out is silent. */
  gains: Record<string, number>;
}

const hasRubberband = new Map<string, Promise<boolean>>();

/** Whether this ffmpeg has the rubberband filter (Debian's does; the bundled WebAssembly one does not). */
function rubberband(tools: FfmpegTools): Promise<boolean> {
  let known = hasRubberband.get(tools.ffmpegPath);
  if (!known) {
    known = promisify(execFile)(tools.ffmpegPath, ['-hide_banner', '-filters']).then(
      ({ stdout }) => /\brubberband\b/.test(stdout),
      () => false,
    );
    hasRubberband.set(tools.ffmpegPath, known);
  }
  return known;
}

/** atempo takes 0.5-2 per instance in older ffmpeg: a factor outside is a chain of them. */
function atempoChain(factor: number): string[] {
  const out: string[] = [];
  let f = factor;
  while (f < 0.5) {
    out.push('atempo=0.5');
    f /= 0.5;
  }
  while (f > 2) {
    out.push('atempo=2');
    f /= 2;
  }
  out.push(`atempo=${f.toFixed(6)}`);
  return out;
}

/**
 * The tempo and pitch filters: Rubber Band (tempo and pitch apart, formants as they are) where the
 * ffmpeg has it; else the pitch as a resampling (asetrate, which moves tempo and pitch together)
 * and atempo (WSOLA) for the tempo that leaves, which keeps the pitch.
 */
function stretchFilters(tempo: number, pitch: number, withRubberband: boolean): string[] {
  if (tempo === 1 && pitch === 0) return [];
  const ratio = 2 ** (pitch / 12);
  if (withRubberband) return [`rubberband=tempo=${tempo}:pitch=${ratio.toFixed(6)}:pitchq=quality`];
  return [
    ...(pitch === 0 ? [] : [`asetrate=44100*${ratio.toFixed(6)}`, 'aresample=44100']),
    ...atempoChain(tempo / ratio),
  ];
}

/** "+2st", "−3st" as a file name says it ("-3st"), "0st". */
const semitones = (p: number) => (p > 0 ? `+${p}st` : `${p}st`);

/**
 * The export's file name, after what it holds: "song - vocals - 75% - +2st.mp3"; a mix that leaves
 * stems out says which ("song - mix without vocals - 100% - 0st.wav").
 */
export function exportFileName(song: string, what: string, heard: string[], all: string[], r: ExportRequest): string {
  const left = all.filter((s) => !heard.includes(s));
  const holds =
    what !== 'mix' || left.length === 0
      ? what
      : left.length < heard.length
        ? `mix without ${left.join(', ')}`
        : `mix of ${heard.join(', ')}`;
  const base =
    song
      .replace(/\.[A-Za-z0-9]{1,8}$/, '')
      .replace(/[^\w .()+,-]+/g, '_')
      .trim() || 'audio';
  return `${base} - ${holds} - ${Math.round(r.tempo * 100)}% - ${semitones(r.pitch)}.${r.format}`.slice(-255);
}

export interface RenderedExport {
  stream: Readable;
  size: number;
  fileName: string;
  contentType: string;
}

/**
 * A stem or the mix of a completed job at a tempo and pitch, in WAV, MP3 or FLAC, rendered by
 * ffmpeg (its own process) from the stored stems into a temporary file, then streamed; the file
 * goes when the stream closes. MP3 and FLAC cannot honestly be encoded in the browser without
 * shipping an encoder (LAME is LGPL), and ffmpeg is already here with both.
 */
export async function renderExport(
  deps: { blobs: BlobStore; tools: FfmpegTools },
  row: JobRow,
  r: ExportRequest,
): Promise<RenderedExport> {
  if (row.status === 'EXPIRED') throw new ApiError('OUTPUT_EXPIRED');
  const outputs = row.status === 'COMPLETED' ? readOutputs(row) : null;
  if (!outputs) throw new ApiError('JOB_NOT_COMPLETED');
  const all = Object.keys(outputs).filter((n) => n !== 'fullAudio');
  if (r.what !== 'mix' && !outputs[r.what]) throw new ApiError('VALIDATION_ERROR', `This job has no stem '${r.what}'.`);
  const gains = r.what === 'mix' ? all.map((n) => [n, r.gains[n] ?? 0] as const) : [[r.what, 1] as const];
  const heard = gains.filter(([, g]) => g > 0);
  if (heard.length === 0) throw new ApiError('VALIDATION_ERROR', 'Every stem is silent: there is nothing to export.');
  const dir = await mkdtemp(join(tmpdir(), 'stemforge-export-'));
  try {
    const inputs = await Promise.all(
      heard.map(async ([name], i) => {
        const local = join(dir, `in-${i}`);
        await deps.blobs.downloadToFile(outputs[name]!.key, local);
        return local;
      }),
    );
    const mix =
      heard.map(([, g], i) => `[${i}:a]volume=${g.toFixed(4)}[a${i}]`).join(';') +
      `;${heard.map((_, i) => `[a${i}]`).join('')}amix=inputs=${heard.length}:normalize=0:duration=longest`;
    const chain = [mix, ...stretchFilters(r.tempo, r.pitch, await rubberband(deps.tools))].join(',');
    const out = join(dir, `out.${r.format}`);
    const run = readFromFfmpeg(deps.tools, [
      '-nostdin',
      '-v',
      'error',
      '-y',
      ...inputs.flatMap((f) => ['-i', f]),
      '-filter_complex',
      chain,
      '-ar',
      '44100',
      // No encoder tag: a WAV gets the plain 44-byte header every reader knows.
      '-fflags',
      '+bitexact',
      '-map_metadata',
      '-1',
      ...CODEC_ARGS[r.format],
      out,
    ]);
    run.stdout.resume();
    // ffmpeg's words name temporary paths: they stay out of the message.
    const code = await run.exited;
    if (code !== 0) throw new Error(`ffmpeg could not render the export (exit ${code})`);
    const { size } = await stat(out);
    const stream = createReadStream(out);
    stream.on('close', () => void rm(dir, { recursive: true, force: true }));
    return {
      stream,
      size,
      contentType: AUDIO_CONTENT_TYPES[r.format],
      fileName: exportFileName(
        jobTitle(row),
        r.what,
        heard.map(([n]) => n),
        all,
        r,
      ),
    };
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}
