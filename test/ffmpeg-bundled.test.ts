import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sharedPath } from '../support/shared.ts';
import { BUNDLED_FFMPEG, bundledFfmpeg, chooseFfmpeg } from '../src/audio/ffmpeg-choice.ts';
import { probeAudio } from '../src/audio/probe.ts';
import { measureDecodedLength } from '../src/audio/decoded-length.ts';
import { decodeAudio } from '../src/audio/decode.ts';
import { AudioEncoder } from '../src/audio/encode.ts';
import type { FfmpegTools } from '../src/audio/tools.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { uploadFile } from './helpers/jobs.ts';

const exec = promisify(execFile);
const CLIP = sharedPath('audio', 'musdb-falcon69', 'mixture.wav');
const CLIP_SECONDS = 6.014;
const OPUS = ['-c:a', 'opus', '-strict', 'experimental', '-ar', '48000', '-b:a', '128k'];

/** Decodes a file to 44.1 kHz stereo float with `tools`. */
async function decodeAll(path: string, tools: FfmpegTools): Promise<Float32Array> {
  const chunks: Float32Array[] = [];
  for await (const chunk of decodeAudio(path, { tools })) chunks.push(chunk);
  const out = new Float32Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** Signal-to-difference ratio in dB of `b` against `a`, over their common length. */
function snrDb(a: Float32Array, b: Float32Array): number {
  let signal = 0;
  let noise = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    signal += a[i]! ** 2;
    noise += (a[i]! - b[i]!) ** 2;
  }
  return 10 * Math.log10(signal / Math.max(noise, 1e-20));
}

/**
 * Issue 42: the ffmpeg that comes with npm ci (FFmpeg 5.1.4 as WebAssembly, bin/ffmpeg-wasm.mjs)
 * reads every input the service takes and writes every output it offers, through the service's
 * own probe, measure, decode and encode code; it is chosen only where no recent ffmpeg is found;
 * and a server without any ffmpeg answers 503 naming it, never 500.
 */
describe('the bundled ffmpeg (WebAssembly)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sf-ffmpeg-wasm-'));
  let tools: FfmpegTools;
  let reference: Float32Array;

  beforeAll(async () => {
    const bundled = await bundledFfmpeg();
    if (!('tools' in bundled)) throw new Error(bundled.problem);
    tools = bundled.tools;
    reference = await decodeAll(CLIP, tools);
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is FFmpeg 5.1.4 and checks its pinned module', async () => {
    const { stdout } = await exec(tools.ffmpegPath, ['-version']);
    expect(stdout).toContain(`ffmpeg version ${BUNDLED_FFMPEG.ffmpegVersion}`);
    const probe = await exec(tools.ffprobePath, ['-version']);
    expect(probe.stdout).toContain(`version ${BUNDLED_FFMPEG.ffmpegVersion}`);
  }, 60_000);

  // Each input the service takes, made from the clip by the bundled ffmpeg itself, then probed,
  // measured and decoded by the service's code; lossless ones decode to the same samples.
  const inputs = [
    { name: 'clip.wav', codec: 'pcm_s16le', args: null, minSnr: 90 },
    { name: 'clip.flac', codec: 'flac', args: ['-c:a', 'flac'], minSnr: 90 },
    { name: 'clip.mp3', codec: 'mp3', args: ['-c:a', 'libmp3lame', '-b:a', '192k'], minSnr: 10 },
    { name: 'clip.m4a', codec: 'aac', args: ['-c:a', 'aac', '-b:a', '192k'], minSnr: 10 },
    // This build's libopus encoder crashes (the service never encodes Opus); its own encoder serves.
    { name: 'clip.opus', codec: 'opus', args: OPUS, minSnr: 5 },
    { name: 'clip.ogg', codec: 'vorbis', args: ['-c:a', 'libvorbis'], minSnr: 5 },
    { name: 'clip.webm', codec: 'opus', args: OPUS, minSnr: 5 },
  ] as const;

  it.each(inputs)(
    'reads $name: probe, decoded length, samples',
    async ({ name, codec, args, minSnr }) => {
      const path = join(dir, name);
      if (args) await exec(tools.ffmpegPath, ['-v', 'error', '-i', CLIP, ...args, path]);
      else copyFileSync(CLIP, path);
      const probe = await probeAudio(path, tools);
      expect(probe.codec).toBe(codec);
      expect(probe.channels).toBe(2);
      const length = await measureDecodedLength(path, { sampleRate: probe.sampleRate, tools });
      expect(length.seconds).toBeGreaterThan(CLIP_SECONDS - 0.05);
      expect(length.seconds).toBeLessThan(CLIP_SECONDS + 0.1);
      const decoded = await decodeAll(path, tools);
      // Lossy codecs add a delay; lossless ones give back the clip's samples (16-bit exact).
      if (minSnr >= 90) expect(snrDb(reference, decoded)).toBeGreaterThan(minSnr);
      else expect(decoded.length / 2 / 44_100).toBeGreaterThan(CLIP_SECONDS - 0.05);
    },
    60_000,
  );

  it.each(['mp3', 'wav', 'flac'] as const)(
    'writes %s through the limiter, resampled to 48 kHz',
    async (format) => {
      const out = join(dir, `out.${format}`);
      const encoder = new AudioEncoder(out, format, { tools, outputSampleRate: 48_000 });
      for (let i = 0; i < reference.length; i += 65_536) await encoder.write(reference.subarray(i, i + 65_536));
      await encoder.end();
      const probe = await probeAudio(out, tools);
      expect(probe.codec).toBe({ mp3: 'mp3', wav: 'pcm_s16le', flac: 'flac' }[format]);
      expect(probe.sampleRate).toBe(48_000);
      const length = await measureDecodedLength(out, { sampleRate: 48_000, tools });
      expect(Math.abs(length.seconds - CLIP_SECONDS)).toBeLessThan(0.06);
      if (format !== 'mp3') {
        // Resampled there and back, the clip survives (swr with a 64-tap filter).
        expect(snrDb(reference, await decodeAll(out, tools))).toBeGreaterThan(30);
      }
    },
    60_000,
  );

  it('refuses a file that is not audio, as ffprobe does', async () => {
    const path = join(dir, 'text.mp3');
    copyFileSync(join(import.meta.dirname, '..', 'package.json'), path);
    await expect(probeAudio(path, tools)).rejects.toThrow(/not a readable audio file/);
  }, 60_000);
});

describe('which ffmpeg start-up chooses', () => {
  const nowhere = { ffmpegPath: '/nonexistent/ffmpeg', ffprobePath: '/nonexistent/ffprobe' };

  it('the bundled build where none is found, saying so in one line', async () => {
    const choice = await chooseFfmpeg({ ...nowhere, configured: false });
    expect(choice.source).toBe('bundled');
    expect(choice.tools.soxr).toBe(false);
    expect(choice.line).toMatch(
      /^ffmpeg: the bundled ffmpeg 5\.1\.4 as WebAssembly, @ffmpeg\/core 0\.12\.10 \(no ffmpeg/,
    );
    expect(choice.line).not.toMatch(/(^|\s)\//);
  }, 60_000);

  it('nothing else where FFMPEG_PATH/FFPROBE_PATH name programs that do not run', async () => {
    const choice = await chooseFfmpeg({ ...nowhere, configured: true });
    expect(choice.source).toBe('none');
    expect(choice.tools.unavailable).toBe(true);
    expect(choice.line).not.toContain('/nonexistent');
  });

  it.skipIf(process.env.STEMFORGE_NO_SYSTEM_FFMPEG === '1')("the system's where it is 5.1 or newer", async () => {
    const choice = await chooseFfmpeg({ ffmpegPath: 'ffmpeg', ffprobePath: 'ffprobe', configured: false });
    const { stdout } = await exec('ffmpeg', ['-version']);
    const version = /version (\d+)\.(\d+)/.exec(stdout);
    const recent = version && (Number(version[1]) > 5 || (Number(version[1]) === 5 && Number(version[2]) >= 1));
    expect(choice.source).toBe(recent ? 'system' : 'bundled');
    if (recent) expect(choice.line).toMatch(/^ffmpeg: the system's ffmpeg \d/);
  });
});

describe('a server without ffmpeg', () => {
  let s: TestServer;
  let gone: TestServer;
  let key: string;
  beforeAll(async () => {
    [s, gone] = await Promise.all([
      startTestServer('sqlite'),
      startTestServer('sqlite', { FFMPEG_PATH: '/nonexistent/ffmpeg', FFPROBE_PATH: '/nonexistent/ffprobe' }),
    ]);
    key = (await s.newAccount(300)).key;
  }, 60_000);
  afterAll(async () => {
    await s?.close();
    await gone?.close();
  });

  const upload = (server: TestServer, k: string) => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(4096)]), 'a.wav');
    return server.api('/v1/files/upload', { key: k, method: 'POST', body: form });
  };

  it('answers an upload 503 SERVICE_UNAVAILABLE naming the tool, not 500, when ffmpeg is gone', async () => {
    const res = await upload(gone, (await gone.newAccount(300)).key);
    expect(res.status).toBe(503);
    const { error } = (await res.json()) as { error: { code: string; message: string; tool: string } };
    expect(error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', tool: 'ffprobe' });
    expect(error.message).toMatch(/no ffprobe/);
    expect(error.message).not.toContain('/nonexistent');
  });

  it('refuses uploads and jobs up front when start-up found none', async () => {
    const uploadKey = await uploadFile(s, key, CLIP, 'clip.wav');
    // As `stemforge serve` leaves the configuration when src/audio/ffmpeg-choice.ts finds no ffmpeg.
    const choice = await chooseFfmpeg({
      ffmpegPath: '/nonexistent/ffmpeg',
      ffprobePath: '/nonexistent/ffprobe',
      configured: true,
    });
    expect(choice.tools.unavailable).toBe(true);
    s.rt.config.ffmpeg = choice.tools;
    const res = await upload(s, key);
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: { tool: string } }).error.tool).toBe('ffmpeg');
    const job = await s.api('/v1/jobs', { key, method: 'POST', json: { uploadKey, outputType: 'VOCALS' } });
    expect(job.status).toBe(503);
    expect(((await job.json()) as { error: { code: string; tool: string } }).error).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      tool: 'ffmpeg',
    });
  }, 60_000);
});
