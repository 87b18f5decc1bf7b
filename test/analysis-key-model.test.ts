import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mirexKeyScore } from '../support/analyze-metrics.ts';
import { KEY_CLIPS, renderKeyClip, SYNTH_RATE, writeWav } from '../support/fixtures/synth-clips.ts';
import { ANALYSIS_SAMPLE_RATE, analyzeAudioDetailed } from '../src/analysis/analyze-audio.ts';
import { ChromaAccumulator, estimateTuning, FINE_BINS } from '../src/analysis/chroma.ts';
import { estimateKeyWithModel, KEY_MODEL_PATH, KEY_MODEL_SHA256 } from '../src/analysis/key-model.ts';
import { MODEL_MIN_PROBABILITY, readKey } from '../src/analysis/key-reading.ts';
import { KEY_SEMITONES, KeySpectrogram } from '../src/analysis/key-spectrogram.ts';
import { decodeToPlanar } from '../support/decode-planar.ts';
import { sharedPath } from '../support/shared.ts';

// The learned key model (models/key-model.onnx, trained only on rendered General MIDI pieces)
// run by onnxruntime-node inside the analyser, on audio it never trained on.
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'stemforge-key-model-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the shipped key model', () => {
  it('is small and is the file its checksum names', () => {
    expect(statSync(KEY_MODEL_PATH).size).toBeLessThan(1_000_000);
    expect(createHash('sha256').update(readFileSync(KEY_MODEL_PATH)).digest('hex')).toBe(KEY_MODEL_SHA256);
  });

  it('is transposition equivariant: a spectrogram moved up a fifth names the key a fifth up', async () => {
    const clip = KEY_CLIPS.find((k) => k.key === 'C major')!;
    const path = await writeWav(dir, 'c-major', renderKeyClip({ ...clip, drums: false }, 12));
    const r = await analyzeAudioDetailed({ mixPath: path });
    expect(r.modelKey).toBe('C major');
    const x = (await decodeToPlanar(path, { sampleRate: ANALYSIS_SAMPLE_RATE, channels: 1 })).channels[0]!;
    const chroma = new ChromaAccumulator(ANALYSIS_SAMPLE_RATE);
    const spectrogram = new KeySpectrogram(ANALYSIS_SAMPLE_RATE);
    chroma.push(x);
    spectrogram.push(x);
    const spec = spectrogram.semitones(estimateTuning(chroma.fineHistogram()));
    const up = new Float32Array(spec.length);
    for (let i = 0; i < spec.length; i++) {
      const s = i % KEY_SEMITONES;
      if (s >= 7) up[i] = spec[i - 7]!;
    }
    expect((await estimateKeyWithModel(spec))?.name).toBe('C major');
    expect((await estimateKeyWithModel(up))?.name).toBe('G major');

    // Below the tonality gate (a flat chroma stands for one drowned by drums) the model's key is
    // reported when it is confident, with its probability as the confidence; noise gets none.
    const flat = { fine: new Float64Array(FINE_BINS).fill(1), frameContrast: 0 };
    const below = await readKey({ ...flat, spectrogram: () => spec });
    expect(below.profile?.score).toBe(0); // a flat chroma fits no key profile
    expect(below.method).toBe('model');
    expect(below.key?.name).toBe('C major');
    expect(below.confidence).toBeGreaterThanOrEqual(MODEL_MIN_PROBABILITY);
    let seed = 1;
    const noise = spec.map(() => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    });
    const none = await readKey({ ...flat, spectrogram: () => noise });
    expect(none.model!.probability).toBeLessThan(MODEL_MIN_PROBABILITY);
    expect(none.key).toBeNull();
    expect(none.confidence).toBeNull();
  });
});

describe('keys of synthesised progressions the model never trained on', () => {
  it('the model names most of the 24 keys of the old synthetic set from 8 s, drums on half', async () => {
    let score = 0;
    for (const clip of KEY_CLIPS) {
      const path = await writeWav(dir, clip.name, renderKeyClip(clip, 8));
      score += mirexKeyScore((await analyzeAudioDetailed({ mixPath: path })).modelKey, clip.key);
    }
    expect(score / KEY_CLIPS.length).toBeGreaterThanOrEqual(0.8);
  });
});

describe('the same audio gives the same key', () => {
  it('as WAV and as MP3 (128 kb/s), on 30 s and 2 s of real recordings', async () => {
    const src = sharedPath('audio', 'music', 'Karissa_Hobbs_-_Lets_Go_Fishin.hq.ogg');
    const all = (await decodeToPlanar(src, { sampleRate: SYNTH_RATE, channels: 1 })).channels[0]!;
    for (const [start, seconds] of [
      [40, 30],
      [60, 2],
      [95, 2],
    ] as const) {
      const wav = await writeWav(
        dir,
        `karissa-${start}-${seconds}`,
        all.slice(start * SYNTH_RATE, (start + seconds) * SYNTH_RATE),
      );
      const mp3 = wav.replace(/\.wav$/, '.mp3');
      execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', wav, '-b:a', '128k', mp3]);
      const a = await analyzeAudioDetailed({ mixPath: wav });
      const b = await analyzeAudioDetailed({ mixPath: mp3 });
      expect(b.key, `${start}+${seconds} s`).toBe(a.key);
      expect(Math.abs(b.keyConfidence! - a.keyConfidence!)).toBeLessThan(0.1);
    }
  });
});
