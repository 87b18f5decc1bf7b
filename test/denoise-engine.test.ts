import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeToPlanar } from '../support/decode-planar.ts';
import { probeAudio } from '../src/audio/probe.ts';
import { DenoiseEngine } from '../src/denoise/engine.ts';
import { siSdr } from '../support/si-sdr.ts';
import { sharedPath } from '../support/shared.ts';

const clean = sharedPath('audio', 'denoise', 'clean_freesound_33711.wav');
const noisy = sharedPath('audio', 'denoise', 'noisy_snr0.wav');
const SECONDS = 4;
let dir: string;
let engine: DenoiseEngine;

const ffmpeg = (...args: string[]) => execFileSync('ffmpeg', ['-nostdin', '-v', 'error', '-y', ...args]);
const mono48 = async (path: string, channel = 0) =>
  (await decodeToPlanar(path, { sampleRate: 48000, channels: channel === 0 ? 1 : 2, durationSeconds: SECONDS }))
    .channels[channel === 0 ? 0 : channel - 1]!;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'stemforge-denoise-'));
  ffmpeg('-i', noisy, '-t', String(SECONDS), join(dir, 'noisy.wav'));
  // Music-rate stereo: noisy speech on the left, the clean speech on the right.
  ffmpeg(
    '-i',
    noisy,
    '-i',
    clean,
    '-filter_complex',
    '[0:a][1:a]amerge=inputs=2',
    '-t',
    String(SECONDS),
    '-ar',
    '44100',
    '-c:a',
    'flac',
    join(dir, 'stereo.flac'),
  );
  engine = new DenoiseEngine({ modelDir: sharedPath('models', 'dfn3') });
  await engine.ready();
});

afterAll(async () => {
  await engine?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('DenoiseEngine (DeepFilterNet3, worker thread)', () => {
  it('improves SI-SDR of noisy speech and reports progress up to 1', async () => {
    const out = join(dir, 'clean.wav');
    const progress: number[] = [];
    const result = await engine.denoiseFile({
      inputPath: join(dir, 'noisy.wav'),
      outputPath: out,
      format: 'wav',
      onProgress: (f) => progress.push(f),
    });
    expect(result.durationSeconds).toBeCloseTo(SECONDS, 2);
    expect(result.channels).toBe(1);
    const ref = await mono48(clean);
    const before = siSdr(ref, await mono48(join(dir, 'noisy.wav')));
    const after = siSdr(ref, await mono48(out));
    expect(after - before).toBeGreaterThan(8);
    expect(progress.at(-1)).toBe(1);
    expect(progress.every((p, i) => i === 0 || p >= progress[i - 1]!)).toBe(true);
  });

  it('keeps music-rate stereo as stereo, cleans the noisy channel and passes clean speech nearly unchanged', async () => {
    const out = join(dir, 'stereo-out.flac');
    const result = await engine.denoiseFile({ inputPath: join(dir, 'stereo.flac'), outputPath: out, format: 'flac' });
    expect(result.channels).toBe(2);
    const probe = await probeAudio(out);
    expect(probe.channels).toBe(2);
    // The input's own rate comes back (resampled 44.1 -> 48 -> 44.1 kHz with soxr inside).
    expect(probe.sampleRate).toBe(44100);
    expect(result.sampleRate).toBe(44100);
    expect(probe.durationSeconds).toBeCloseTo(SECONDS, 1);
    const ref = await mono48(clean);
    expect(siSdr(ref, await mono48(out, 1)) - siSdr(ref, await mono48(join(dir, 'noisy.wav')))).toBeGreaterThan(8);
    // Clean speech through the engine (resampled 48k -> 44.1k -> 48k on the way): nearly unchanged.
    expect(siSdr(ref, await mono48(out, 2))).toBeGreaterThan(20);
  });

  it('writes a 16 kHz input back at 16 kHz, of the same length, cleaned', async () => {
    const nb = join(dir, 'nb.wav');
    ffmpeg('-i', join(dir, 'noisy.wav'), '-ar', '16000', nb);
    const out = join(dir, 'nb-out.mp3');
    const result = await engine.denoiseFile({ inputPath: nb, outputPath: out, format: 'mp3' });
    expect(result.sampleRate).toBe(16000);
    const probe = await probeAudio(out);
    expect(probe.sampleRate).toBe(16000);
    // MP3 adds its encoder delay and frame padding (576-sample frames at 16 kHz).
    expect(Math.abs(probe.durationSeconds - SECONDS)).toBeLessThan(0.2);
    const at16 = async (p: string) =>
      (await decodeToPlanar(p, { sampleRate: 16000, channels: 1, durationSeconds: SECONDS })).channels[0]!;
    const ref = await at16(clean);
    expect(siSdr(ref, await at16(out)) - siSdr(ref, await at16(nb))).toBeGreaterThan(8);
  });

  it('cancels through an AbortSignal and removes the partial output', async () => {
    const out = join(dir, 'cancelled.wav');
    const controller = new AbortController();
    const job = engine.denoiseFile({
      inputPath: join(dir, 'noisy.wav'),
      outputPath: out,
      format: 'wav',
      signal: controller.signal,
      onProgress: () => controller.abort(),
    });
    await expect(job).rejects.toMatchObject({ name: 'AbortError' });
    expect(existsSync(out)).toBe(false);
    // The thread stays usable after a cancelled job.
    const again = await engine.denoiseFile({
      inputPath: join(dir, 'noisy.wav'),
      outputPath: join(dir, 'again.mp3'),
      format: 'mp3',
    });
    expect(again.durationSeconds).toBeCloseTo(SECONDS, 2);
  });

  it('rejects an input that is not audio', async () => {
    const bogus = join(dir, 'bogus.wav');
    execFileSync('sh', ['-c', `echo not audio > ${bogus}`]);
    await expect(
      engine.denoiseFile({ inputPath: bogus, outputPath: join(dir, 'x.wav'), format: 'wav' }),
    ).rejects.toThrow(/audio/);
  });
});
