import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { rm, truncate } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultTools } from '../src/audio/tools.ts';
import { separateStream, type StemSink } from '../src/separation/separate-stream.ts';
import { SegmentCheckpoints } from '../src/separation/segment-checkpoints.ts';
import type { InferenceSettings } from '../src/separation/quality.ts';
import type { SegmentSeparator } from '../src/separation/segment-separator.ts';
import type { StemName } from '../src/separation/stems.ts';

const SR = 44_100;
const STEMS: StemName[] = ['vocals', 'drums', 'instrumental'];

/**
 * A stand-in for the network (no ONNX here: this file tests the checkpoints' arithmetic): each
 * source is a share of the segment bent by the segment's own loudness, so a segment's output
 * depends on where it was cut and a resume that put back a wrong overlap-add window or the wrong
 * input would show. The segment is short so the input crosses many segment boundaries.
 */
function bentShareModel(segmentFrames: number): SegmentSeparator & { calls: number } {
  return {
    segmentFrames,
    sources: ['drums', 'bass', 'other', 'vocals'],
    calls: 0,
    async separate(mix) {
      this.calls++;
      let energy = 0;
      for (const v of mix) energy += v * v;
      const bend = Math.tanh(energy / mix.length);
      const out = new Float32Array(8 * segmentFrames);
      for (let s = 0; s < 4; s++)
        for (let c = 0; c < 2; c++)
          for (let i = 0; i < segmentFrames; i++)
            out[(s * 2 + c) * segmentFrames + i] = (0.1 + 0.2 * s + bend) * mix[c * segmentFrames + i]! ** 3;
      return out;
    },
  };
}

function collect(): { got: Record<string, Float32Array[]>; sinks: Record<string, StemSink> } {
  const got: Record<string, Float32Array[]> = Object.fromEntries(STEMS.map((s) => [s, []]));
  const sinks = Object.fromEntries(
    STEMS.map((s) => [s, { write: async (x: Float32Array) => void got[s]!.push(x.slice()) }]),
  );
  return { got, sinks };
}

const joined = (parts: Float32Array[] = []) => Buffer.concat(parts.map((p) => Buffer.from(p.buffer)));

describe('separation checkpoints: a run resumed from one writes what an uninterrupted run writes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sf-checkpoints-'));
  afterAll(() => rm(dir, { recursive: true, force: true }));
  const input = join(dir, 'in.flac');
  execFileSync('ffmpeg', [
    '-v',
    'error',
    '-f',
    'lavfi',
    '-i',
    'sine=frequency=220:duration=6.2:sample_rate=44100',
    '-f',
    'lavfi',
    '-i',
    'anoisesrc=duration=6.2:amplitude=0.3:sample_rate=44100:seed=3',
    '-filter_complex',
    '[0][1]amix=inputs=2:normalize=0,volume=0.8:eval=frame,pan=stereo|c0=c0|c1=0.7*c0',
    '-c:a',
    'flac',
    input,
  ]);

  const run = async (o: { settings: InferenceSettings; checkpoints?: SegmentCheckpoints; stopAfter?: number }) => {
    const model = bentShareModel(SR / 2);
    const { got, sinks } = collect();
    const controller = new AbortController();
    let reports = 0;
    const result = await separateStream(model, o.checkpoints ? o.checkpoints.sinks : sinks, {
      inputPath: input,
      sampleRate: SR,
      tools: defaultTools,
      settings: o.settings,
      instrumental: 'residual',
      signal: controller.signal,
      checkpoints: o.checkpoints,
      onProgress: () => {
        if (++reports === o.stopAfter) controller.abort(new Error('killed'));
      },
    }).catch((err: Error) => err);
    return { result, got, calls: model.calls };
  };

  /** Checkpoints in `folder` passing samples on to fresh collecting sinks. */
  const checkpointed = async (folder: string, model = 'model-a') => {
    const { got, sinks } = collect();
    return { got, cp: await SegmentCheckpoints.open(join(dir, folder), sinks, model) };
  };

  it.each([
    { overlap: 0.25, shifts: 0 },
    { overlap: 0.1, shifts: 2 },
  ])(
    'stopped after 5 segments, resumed: same samples, no segment run twice (overlap $overlap, shifts $shifts)',
    async (settings) => {
      const whole = await run({ settings });
      expect(whole.result).not.toBeInstanceOf(Error);
      const segments = (whole.result as { segments: number }).segments;
      expect(segments).toBeGreaterThan(10);

      const folder = `run-${settings.overlap}`;
      const first = await checkpointed(folder);
      // Reports: one at the start, then one per segment: the 6th comes after the 5th segment.
      const stopped = await run({ settings, checkpoints: first.cp, stopAfter: 6 });
      await first.cp.close();
      expect(stopped.result).toBeInstanceOf(Error);
      expect(stopped.calls).toBe(5);

      const second = await checkpointed(folder);
      const resumed = await run({ settings, checkpoints: second.cp });
      await second.cp.close();
      expect(resumed.result).toMatchObject({ resumedAt: 5, segments });
      expect(resumed.calls).toBe(segments - 5);
      for (const stem of STEMS) expect(joined(second.got[stem]).equals(joined(whole.got[stem]))).toBe(true);
    },
  );

  it('another model, or files shorter than the state says: starts over, and still writes the right samples', async () => {
    const settings = { overlap: 0.25, shifts: 0 };
    const whole = await run({ settings });
    const segments = (whole.result as { segments: number }).segments;
    for (const spoil of ['model', 'files'] as const) {
      const folder = `spoiled-${spoil}`;
      const first = await checkpointed(folder);
      await run({ settings, checkpoints: first.cp, stopAfter: 4 });
      await first.cp.close();
      if (spoil === 'files') await truncate(join(dir, folder, 'vocals.f32'), 1000);
      const second = await checkpointed(folder, spoil === 'model' ? 'model-b' : 'model-a');
      const again = await run({ settings, checkpoints: second.cp });
      await second.cp.close();
      expect(again.result, spoil).toMatchObject({ resumedAt: 0 });
      expect(again.calls, spoil).toBe(segments);
      for (const stem of STEMS) expect(joined(second.got[stem]).equals(joined(whole.got[stem])), spoil).toBe(true);
    }
  });
});
