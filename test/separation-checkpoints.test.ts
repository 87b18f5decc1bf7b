import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { rm, truncate } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultTools } from '../src/audio/tools.ts';
import { separateStream, type StemSink } from '../src/separation/separate-stream.ts';
import { SegmentCheckpoints } from '../src/separation/segment-checkpoints.ts';
import type { InferenceSettings } from '../src/separation/quality.ts';
import { shareSeparator } from './helpers/share-separator.ts';
import { makeTone } from './helpers/audio.ts';
import type { StemName } from '../src/separation/stems.ts';

const SR = 44_100;
const STEMS: StemName[] = ['vocals', 'drums', 'instrumental'];

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
  beforeAll(() => makeTone(input, 6.2));

  const run = async (o: { settings: InferenceSettings; checkpoints?: SegmentCheckpoints; stopAfter?: number }) => {
    const model = shareSeparator(SR / 2, { bySegment: true });
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
