import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { FfmpegTools } from './tools.ts';
import { verifyFileCached } from '../models/verify.ts';

const run = promisify(execFile);

/**
 * The ffmpeg that comes with `npm ci`: FFmpeg 5.1.4 compiled to WebAssembly, the npm package
 * `@ffmpeg/core` (GPL-2.0-or-later), run by bin/ffmpeg-wasm.mjs and bin/ffprobe-wasm.mjs. Pinned
 * by version in package.json, by the tarball's sha512 in package-lock.json (npm ci refuses another)
 * and, here, by the sha256 of the WebAssembly module, checked before it is used. Why this build
 * and no native one: docs/ffmpeg.md.
 */
export const BUNDLED_FFMPEG = {
  package: '@ffmpeg/core',
  version: '0.12.10',
  ffmpegVersion: '5.1.4',
  integrity: 'sha512-dzNplnn2Nxle2c2i2rrDhqcB19q9cglCkWnoMTDN9Q9l3PvdjZWd1HfSPjCNWc/p8Q3CT+Es9fWOR0UhAeYQZA==',
  wasmSha256: '9f57947a5bd530d8f00c5b3f2cb2a3492faa7e5d823315342d6a8656d0a6b7b7',
} as const;

/** A system ffmpeg older than this release line (the bundled one's) is passed over for the bundled build. */
const MIN_SYSTEM_VERSION = [5, 1] as const;
/** Git builds ("N-12345-g...") carry no release number: their copyright year stands in for it. */
const MIN_SYSTEM_YEAR = 2022;

export type FfmpegSource = 'configured' | 'system' | 'bundled' | 'none';

export interface FfmpegChoice {
  tools: FfmpegTools & { configured: boolean; unavailable?: boolean };
  source: FfmpegSource;
  /** The one line start-up prints: which ffmpeg jobs use, and why (no path: it may be printed anywhere). */
  line: string;
}

interface Found {
  version: string;
  recent: boolean;
  soxr: boolean;
}

/** What `program -version` says, or undefined when it does not run. */
async function inspect(program: string): Promise<Found | undefined> {
  try {
    const { stdout } = await run(program, ['-version'], { timeout: 30_000 });
    const version = /version (\S+)/.exec(stdout)?.[1] ?? 'unknown';
    const release = /^n?(\d+)\.(\d+)/.exec(version);
    const year = Number(/Copyright \(c\) \d{4}-(\d{4})/.exec(stdout)?.[1] ?? 0);
    const [major, minor] = MIN_SYSTEM_VERSION;
    const recent = release
      ? Number(release[1]) > major || (Number(release[1]) === major && Number(release[2]) >= minor)
      : year >= MIN_SYSTEM_YEAR;
    return { version, recent, soxr: stdout.includes('--enable-libsoxr') };
  } catch {
    return undefined;
  }
}

/** Both programs of a pair, with ffmpeg's facts; undefined unless both run. */
async function inspectPair(tools: FfmpegTools): Promise<Found | undefined> {
  const [ffmpeg, ffprobe] = await Promise.all([inspect(tools.ffmpegPath), inspect(tools.ffprobePath)]);
  return ffmpeg && ffprobe ? ffmpeg : undefined;
}

/**
 * The bundled build's launchers, or why it cannot be used. Its module is checked against the
 * pinned sha256, hashed again only when it changed since the check recorded in `cacheDir`.
 */
export async function bundledFfmpeg(cacheDir?: string): Promise<{ tools: FfmpegTools } | { problem: string }> {
  let wasm: string;
  try {
    wasm = createRequire(import.meta.url).resolve(`${BUNDLED_FFMPEG.package}/wasm`);
  } catch {
    return { problem: `${BUNDLED_FFMPEG.package} is not installed (run npm ci)` };
  }
  try {
    await verifyFileCached(wasm, BUNDLED_FFMPEG.wasmSha256, cacheDir);
  } catch {
    return { problem: `${BUNDLED_FFMPEG.package}'s module does not match its pinned checksum: refused` };
  }
  const launcher = (name: string) => fileURLToPath(new URL(`../../bin/${name}-wasm.mjs`, import.meta.url));
  return { tools: { ffmpegPath: launcher('ffmpeg'), ffprobePath: launcher('ffprobe'), soxr: false } };
}

/**
 * Chooses the ffmpeg this process runs: the one FFMPEG_PATH/FFPROBE_PATH name, if set (and nothing
 * else: an operator's explicit choice is not second-guessed); else the system's, when it runs and
 * is 5.1 or newer; else the bundled WebAssembly build; else an older system ffmpeg; else none
 * (`unavailable`: uploads and jobs answer 503 naming ffmpeg).
 */
export async function chooseFfmpeg(
  requested: FfmpegTools & { configured: boolean },
  cacheDir?: string,
): Promise<FfmpegChoice> {
  const base = {
    ffmpegPath: requested.ffmpegPath,
    ffprobePath: requested.ffprobePath,
    configured: requested.configured,
  };
  if (requested.configured) {
    const found = await inspectPair(requested);
    return found
      ? {
          tools: { ...base, soxr: found.soxr },
          source: 'configured',
          line: `ffmpeg: ${found.version}, as FFMPEG_PATH/FFPROBE_PATH say`,
        }
      : {
          tools: { ...base, unavailable: true },
          source: 'none',
          line: 'ffmpeg: none: FFMPEG_PATH/FFPROBE_PATH name no ffmpeg and ffprobe that run',
        };
  }
  const system = await inspectPair(requested);
  if (system?.recent) {
    return {
      tools: { ...base, soxr: system.soxr },
      source: 'system',
      line: `ffmpeg: the system's ffmpeg ${system.version}`,
    };
  }
  const bundled = await bundledFfmpeg(cacheDir);
  const built = `ffmpeg ${BUNDLED_FFMPEG.ffmpegVersion} as WebAssembly, ${BUNDLED_FFMPEG.package} ${BUNDLED_FFMPEG.version}`;
  if ('tools' in bundled) {
    const why = system
      ? `the system's ${system.version} is older than ${MIN_SYSTEM_VERSION.join('.')}`
      : `no ffmpeg and ffprobe on PATH; install ffmpeg ${MIN_SYSTEM_VERSION.join('.')} or newer: several times faster`;
    return { tools: { ...base, ...bundled.tools }, source: 'bundled', line: `ffmpeg: the bundled ${built} (${why})` };
  }
  if (system) {
    return {
      tools: { ...base, soxr: system.soxr },
      source: 'system',
      line: `ffmpeg: the system's ffmpeg ${system.version}, older than ${MIN_SYSTEM_VERSION.join('.')} (the bundled build: ${bundled.problem})`,
    };
  }
  return {
    tools: { ...base, unavailable: true },
    source: 'none',
    line: `ffmpeg: none (not on PATH; the bundled build: ${bundled.problem})`,
  };
}
