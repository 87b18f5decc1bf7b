import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeToPlanar } from '../support/decode-planar.ts';
import { defaultTools } from '../src/audio/tools.ts';
import { separateStream } from '../src/separation/separate-stream.ts';
import { shareSeparator } from './helpers/share-separator.ts';
import { passDelays, planSegments, transitionWeight } from '../src/separation/segment-plan.ts';
import type { StemName } from '../src/separation/stems.ts';

const SR = 44_100;
function collectSinks(stems: StemName[]) {
  const got: Record<string, number[]> = {};
  const sinks = Object.fromEntries(
    stems.map((s) => [
      s,
      {
        write: async (x: Float32Array) => {
          got[s] ??= [];
          const a = got[s];
          for (const v of x) a.push(v);
        },
      },
    ]),
  );
  return { got, sinks };
}

describe('segment plan', () => {
  it('follows apply_model: offsets every stride, a centred short last chunk, triangular weights', () => {
    const segment = 1000;
    const plan = planSegments(2600, { segment, overlap: 0.25, shifts: 0, sampleRate: SR, schedule: 'demucs' });
    expect(plan.map((s) => s.keepStart)).toEqual([0, 750, 1500, 2250]);
    expect(plan.at(-1)).toMatchObject({ keepLength: 350, inputStart: 2250 - 325 });
    const w = transitionWeight(segment);
    expect([w[0], w[499], w[500], w[999]]).toEqual([1 / 500, 1, 1, 1 / 500].map(Math.fround));
  });

  it('spreads the fewest whole segments evenly, each overlap at least the nominal one', () => {
    const segment = 343_980; // 7.8 s at 44.1 kHz
    const base = { segment, shifts: 0, sampleRate: SR };
    // 60 s: Demucs runs 11 segments at overlap 0.25 (the last keeps 0.5 s), 10 cover it evenly.
    expect(planSegments(60 * SR, { ...base, overlap: 0.25, schedule: 'demucs' })).toHaveLength(11);
    expect(planSegments(60 * SR, { ...base, overlap: 0.25 })).toHaveLength(10);
    for (const length of [segment + 1, 9 * SR, 60 * SR, 61 * SR + 17, 600 * SR]) {
      for (const overlap of [0.02, 0.05, 0.25, 0.5]) {
        const plan = planSegments(length, { ...base, overlap });
        const stride = Math.floor((1 - overlap) * segment);
        expect(plan.length).toBe(1 + Math.ceil((length - segment) / stride));
        expect(plan[0]).toMatchObject({ inputStart: 0, keepStart: 0, keepLength: segment });
        expect(plan.at(-1)!.keepStart + segment).toBe(length);
        for (const [i, s] of plan.entries()) {
          expect(s).toMatchObject({ inputStart: s.keepStart, keepLength: segment });
          if (i > 0) {
            const gap = s.keepStart - plan[i - 1]!.keepStart;
            expect(gap).toBeGreaterThan(0);
            expect(gap).toBeLessThanOrEqual(stride);
          }
        }
        // One fewer would leave a gap: the count is the least that covers the track.
        expect((plan.length - 2) * stride + segment).toBeLessThan(length);
      }
    }
    // No longer than a segment: one segment, centred, as Demucs does.
    expect(planSegments(6 * SR, { ...base, overlap: 0.25 })).toEqual(
      planSegments(6 * SR, { ...base, overlap: 0.25, schedule: 'demucs' }).slice(0, 1),
    );
    expect(planSegments(6 * SR, { ...base, overlap: 0.25 })).toEqual([
      { pass: 0, inputStart: -Math.floor((segment - 6 * SR) / 2), keepStart: 0, keepLength: 6 * SR },
    ]);
  });

  it('draws each pass up to half a second of leading silence from the seed (demucs --shifts)', () => {
    const maxShift = Math.floor(0.5 * SR);
    const delays = passDelays(4, SR, 1);
    expect(passDelays(4, SR, 1)).toEqual(delays);
    expect(passDelays(4, SR, 2)).not.toEqual(delays);
    expect(passDelays(0, SR, 1)).toEqual([0]);
    expect(passDelays(1, SR, 1)).toHaveLength(1);
    // randint(0, max_shift): integers over the whole range, uniform.
    const many = passDelays(2000, SR, 3);
    for (const d of many) expect(Number.isInteger(d) && d >= 0 && d <= maxShift).toBe(true);
    expect(Math.min(...many)).toBeLessThan(0.01 * maxShift);
    expect(Math.max(...many)).toBeGreaterThan(0.99 * maxShift);
    expect(many.reduce((a, d) => a + d, 0) / many.length / maxShift).toBeCloseTo(0.5, 1);

    const plan = planSegments(10 * SR, { segment: 343_980, overlap: 0.25, shifts: 4, sampleRate: SR, seed: 1 });
    for (let pass = 0; pass < 4; pass++) expect(plan.find((s) => s.pass === pass)!.keepStart).toBe(-delays[pass]!);
    for (let i = 1; i < plan.length; i++) expect(plan[i]!.keepStart).toBeGreaterThanOrEqual(plan[i - 1]!.keepStart);
  });
});

describe('streaming separation (decode -> segments -> overlap-add -> sinks)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sf-stream-'));
  const input = join(dir, 'in.flac');
  // 9.3 s of a stereo chirp plus noise, from ffmpeg's generators.
  execFileSync('ffmpeg', [
    '-v',
    'error',
    '-f',
    'lavfi',
    '-i',
    'sine=frequency=330:duration=9.3:sample_rate=44100',
    '-f',
    'lavfi',
    '-i',
    'anoisesrc=duration=9.3:amplitude=0.1:sample_rate=44100:seed=7',
    '-filter_complex',
    '[0][1]amix=inputs=2:normalize=0,pan=stereo|c0=c0|c1=0.5*c0',
    '-c:a',
    'flac',
    input,
  ]);

  it.each([
    { overlap: 0.25, shifts: 0 },
    { overlap: 0.1, shifts: 2 },
    { overlap: 0.5, shifts: 3, seed: 9 },
  ])('reassembles every sample exactly (overlap $overlap, shifts $shifts)', async (settings) => {
    const { channels } = await decodeToPlanar(input);
    const n = channels[0]!.length;
    const model = shareSeparator(SR);
    const stems: StemName[] = ['vocals', 'drums', 'instrumental'];
    const { got, sinks } = collectSinks(stems);
    const progress: number[] = [];
    const result = await separateStream(model, sinks, {
      inputPath: input,
      sampleRate: SR,
      tools: defaultTools,
      settings,
      instrumental: 'residual',
      onProgress: (f) => progress.push(f),
    });
    expect(result.frames).toBe(n);
    expect(model.calls).toBe(result.segments);
    expect(progress[0]).toBe(0);
    expect(progress.at(-1)).toBe(1);
    let mean = 0;
    for (let i = 0; i < n; i++) mean += (channels[0]![i]! + channels[1]![i]!) / 2 / n;
    for (const stem of stems) expect(got[stem]?.length).toBe(2 * n);
    let worst = 0;
    for (let i = 0; i < n; i++) {
      for (let c = 0; c < 2; c++) {
        const x = channels[c]![i]!;
        // Sources are `share * normalised + ...`, denormalised with the track mean added to each.
        const vocals = 0.4 * (x - mean) + mean;
        const drums = 0.1 * (x - mean) + mean;
        worst = Math.max(worst, Math.abs(got.vocals![2 * i + c]! - vocals), Math.abs(got.drums![2 * i + c]! - drums));
        worst = Math.max(worst, Math.abs(got.instrumental![2 * i + c]! - (x - vocals)));
      }
    }
    expect(worst).toBeLessThan(1e-5);
  });

  it('stops at the next segment when aborted', async () => {
    const model = shareSeparator(SR);
    const controller = new AbortController();
    const { sinks } = collectSinks(['vocals']);
    const run = separateStream(model, sinks, {
      inputPath: input,
      sampleRate: SR,
      tools: defaultTools,
      settings: { overlap: 0.25, shifts: 0 },
      instrumental: 'residual',
      onProgress: (f) => {
        if (f > 0.3) controller.abort(new Error('stop'));
      },
      signal: controller.signal,
    });
    await expect(run).rejects.toThrow('stop');
    expect(model.calls).toBeLessThan(6);
  });

  it.sequential('cleans up', () => rmSync(dir, { recursive: true, force: true }));
});
