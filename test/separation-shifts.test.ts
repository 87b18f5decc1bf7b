import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeToPlanar } from '../support/decode-planar.ts';
import { defaultTools } from '../src/audio/tools.ts';
import { getModelSpec } from '../src/models/registry.ts';
import { resolveModel } from '../src/models/resolve.ts';
import { prepareModel } from '../src/separation/prepared-model.ts';
import type { InferenceSettings } from '../src/separation/quality.ts';
import { SegmentModel } from '../src/separation/segment-model.ts';
import { separateStream } from '../src/separation/separate-stream.ts';
import type { StemName } from '../src/separation/stems.ts';
import { cutMusdbMixture } from './helpers/audio.ts';
import { snrDb } from './helpers/snr.ts';

const STEMS: StemName[] = ['drums', 'bass', 'other', 'vocals', 'instrumental'];

/**
 * Test-time shifts with the real HTDemucs on 2 s of the MUSDB excerpt (one segment per pass): the
 * random shift is a function of the seed, it changes what the network sees, and the stems still add
 * up to the input.
 */
describe('test-time shifts (real HTDemucs)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sf-shifts-'));
  const input = join(dir, 'clip.wav');
  cutMusdbMixture(input, 2, 1);
  // The same clip with left and right exchanged.
  const swappedInput = join(dir, 'swapped.wav');
  execFileSync('ffmpeg', [
    '-v',
    'error',
    '-i',
    input,
    '-af',
    'pan=stereo|c0=c1|c1=c0',
    '-c:a',
    'pcm_f32le',
    swappedInput,
  ]);
  let model: SegmentModel | undefined;
  afterAll(async () => {
    await model?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  async function separate(settings: InferenceSettings, path = input): Promise<Record<string, Float32Array[]>> {
    if (!model) {
      const spec = getModelSpec('htdemucs')!;
      const exported = resolveModel('htdemucs', { modelsDir: join(dir, 'models') })!.files['htdemucs.onnx']!;
      const prepared = await prepareModel(exported, spec.files[0]!.sha256!, join(dir, 'models'));
      model = await SegmentModel.load(prepared.path, spec.stems!, { executionProvider: 'cpu', threads: 2 });
    }
    const got: Record<string, [number[], number[]]> = {};
    const sinks = Object.fromEntries(
      STEMS.map((s) => {
        const channels: [number[], number[]] = [[], []];
        got[s] = channels;
        return [
          s,
          {
            write: async (x: Float32Array) => {
              for (let i = 0; i < x.length; i++) channels[i % 2]!.push(x[i]!);
            },
          },
        ];
      }),
    );
    await separateStream(model, sinks, {
      inputPath: path,
      sampleRate: 44_100,
      tools: defaultTools,
      settings,
      instrumental: 'residual',
    });
    return Object.fromEntries(STEMS.map((s) => [s, got[s]!.map((c) => Float32Array.from(c))]));
  }

  const maxDiff = (a: Float32Array[], b: Float32Array[]) =>
    Math.max(...a.map((c, k) => c.reduce((m, v, i) => Math.max(m, Math.abs(v - b[k]![i]!)), 0)));

  // Three passes of the full 7.8 s network; minutes on a loaded 2-core machine.
  it('is reproducible for a seed, differs from no shift, and sums to the mix', { timeout: 600_000 }, async () => {
    const { channels: mix } = await decodeToPlanar(input);
    const plain = await separate({ overlap: 0.25, shifts: 0 });
    const a = await separate({ overlap: 0.25, shifts: 1, seed: 1 });
    const again = await separate({ overlap: 0.25, shifts: 1, seed: 1 });
    for (const s of STEMS) {
      expect(a[s]![0]).toHaveLength(mix[0]!.length);
      expect(maxDiff(a[s]!, again[s]!), `${s}: same seed`).toBeLessThan(1e-6);
    }
    // A shift moves the audio within the network's 7.8 s window: similar stems, not the same
    // (other seeds draw other shifts: test/separation-stream.test.ts).
    for (const s of ['drums', 'vocals']) {
      const shiftVsPlain = snrDb(plain[s]!, a[s]!);
      console.log(`${s}: shifted vs plain ${shiftVsPlain.toFixed(1)} dB`);
      expect(shiftVsPlain, s).toBeGreaterThan(10);
      expect(shiftVsPlain, s).toBeLessThan(80);
    }
    // vocals + instrumental is the input exactly; the four sources add up to it as closely as
    // without a shift.
    const residual = [0, 1].map((c) => a.vocals![c]!.map((v, i) => v + a.instrumental![c]![i]!));
    expect(snrDb(mix, residual)).toBeGreaterThan(100);
    const sum4 = (r: Record<string, Float32Array[]>) =>
      [0, 1].map((c) => r.drums![c]!.map((v, i) => v + r.bass![c]![i]! + r.other![c]![i]! + r.vocals![c]![i]!));
    const plainSum = snrDb(mix, sum4(plain));
    const shiftedSum = snrDb(mix, sum4(a));
    console.log(`sources sum vs mix: plain ${plainSum.toFixed(1)} dB, shifted ${shiftedSum.toFixed(1)} dB`);
    expect(shiftedSum).toBeGreaterThan(plainSum - 3);
    expect(shiftedSum).toBeGreaterThan(10);
  });

  // Five runs of the full network (two separations with their swap pass, one plain); minutes when loaded.
  it('with the swap pass, channel-swapped input gives channel-swapped stems', { timeout: 600_000 }, async () => {
    const settings: InferenceSettings = { overlap: 0.25, shifts: 0, flips: ['swap'] };
    const a = await separate(settings);
    const b = await separate(settings, swappedInput);
    const plain = await separate({ overlap: 0.25, shifts: 0 });
    for (const s of STEMS) {
      // Both separations run the network on the same two inputs, in the other order: the average
      // is the same sum, and the clip's mono mean and deviation are the same.
      expect(maxDiff(a[s]!, [b[s]![1]!, b[s]![0]!]), `${s}: swapped`).toBeLessThan(1e-6);
    }
    // The swap pass changes the stems (the network is not exactly symmetric), a little.
    const vocals = snrDb(plain.vocals!, a.vocals!);
    console.log(`vocals: plain vs with the swap pass ${vocals.toFixed(1)} dB`);
    expect(vocals).toBeGreaterThan(15);
    expect(vocals).toBeLessThan(100);
  });
});
