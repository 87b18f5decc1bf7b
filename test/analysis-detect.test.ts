import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnalysisError, analyzeAudio, analyzeAudioDetailed } from '../src/analysis/analyze-audio.ts';
import { analyzeAudioInThread } from '../src/analysis/analyze-off-thread.ts';
import {
  KEY_CLIPS,
  renderGroove,
  renderKeyClip,
  SYNTH_RATE,
  TEMPO_CLIPS,
  writeWav,
} from '../support/fixtures/synth-clips.ts';
import { sharedPath } from '../support/shared.ts';

// Real ffmpeg decoding of synthesised clips with known labels, and of the shared labelled tracks.
let dir: string;
const tempoClip = (bpm: number) => TEMPO_CLIPS.find((c) => c.bpm === bpm)!;
const keyClip = (key: string) => KEY_CLIPS.find((c) => c.key === key)!;
const within4 = (est: number | null, ref: number) => est !== null && Math.abs(est / ref - 1) <= 0.04;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'stemforge-analysis-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('tempo of synthesised grooves', () => {
  // Slow boom-bap (double-time trap), house (the common case), two-step drum & bass (half-time trap).
  for (const bpm of [70, 124, 174]) {
    it(`detects ${bpm} BPM (${tempoClip(bpm).groove})`, async () => {
      const path = await writeWav(dir, `t${bpm}`, renderGroove(tempoClip(bpm), 12));
      const { bpm: found } = await analyzeAudio({ mixPath: path });
      expect(found).not.toBeNull();
      expect(within4(found, bpm), `found ${found}`).toBe(true);
      expect(Number.isInteger(found! * 10)).toBe(true);
    });
  }
});

describe('key of synthesised progressions', () => {
  for (const key of ['Eb major', 'F# minor', 'C# minor', 'A major']) {
    it(`detects ${key}`, async () => {
      const clip = keyClip(key);
      const path = await writeWav(dir, clip.name, renderKeyClip(clip, 10));
      expect((await analyzeAudio({ mixPath: path })).key).toBe(key);
    });
  }
});

describe('shared labelled tracks', () => {
  it('finds 126 BPM in 126bpm.mp3', async () => {
    const { bpm } = await analyzeAudio({ mixPath: sharedPath('audio', 'tempo-key', '126bpm.mp3') });
    expect(within4(bpm, 126), `found ${bpm}`).toBe(true);
  });

  it('finds Eb major in EDM_Eb_major_2min.mp3', async () => {
    const r = await analyzeAudioDetailed({ mixPath: sharedPath('audio', 'tempo-key', 'EDM_Eb_major_2min.mp3') });
    expect(r.key).toBe('Eb major');
    expect(r.camelot).toBe('5B');
  });
});

describe('stems', () => {
  it('takes tempo from the drums stem and key from the harmonic stems', async () => {
    // The "mix" is a chord clip at 96 BPM; the drums stem is a 150 BPM groove: the tempo must come
    // from the drums, the key from the harmonic stem.
    const chords = await writeWav(dir, 'chords', renderKeyClip({ ...keyClip('G minor'), drums: false }, 10));
    const drums = await writeWav(dir, 'drums150', renderGroove(tempoClip(150), 10));
    const r = await analyzeAudioDetailed({ mixPath: chords, drumsPath: drums, harmonicPaths: [chords] });
    expect(r.tempoSource).toBe('stems');
    expect(r.keySource).toBe('stems');
    expect(within4(r.bpm, 150), `found ${r.bpm}`).toBe(true);
    expect(r.key).toBe('G minor');
  });

  it('analyses the separated musdb stems', async () => {
    const s = (name: string) => sharedPath('audio', 'musdb-falcon69', `${name}.wav`);
    const r = await analyzeAudioDetailed({
      mixPath: s('mixture'),
      drumsPath: s('drums'),
      bassPath: s('bass'),
      harmonicPaths: [s('other'), s('vocals')],
    });
    expect(r.bpm).toBeGreaterThan(55);
    expect(r.key).toMatch(/^[A-G][b#]? (major|minor)$/);
  });
});

describe('failures and edge cases', () => {
  it('reports no tempo and no key for silence', async () => {
    const path = await writeWav(dir, 'silence', new Float32Array(SYNTH_RATE * 6));
    expect(await analyzeAudio({ mixPath: path })).toEqual({
      bpm: null,
      key: null,
      tempoConfidence: null,
      keyConfidence: null,
    });
  });

  it('rejects with an AnalysisError for a file that is not audio', async () => {
    const path = join(dir, 'not-audio.mp3');
    writeFileSync(path, 'this is not audio');
    await expect(analyzeAudio({ mixPath: path })).rejects.toBeInstanceOf(AnalysisError);
    await expect(analyzeAudioInThread({ mixPath: path })).rejects.toBeInstanceOf(AnalysisError);
  });

  it('gives the same answer off the event loop, in a worker thread', async () => {
    const path = await writeWav(dir, 't124b', renderGroove(tempoClip(124), 8));
    const inThread = await analyzeAudioInThread({ mixPath: path });
    const inProcess = await analyzeAudioDetailed({ mixPath: path });
    expect(inThread).toEqual(inProcess);
    expect(within4(inThread.bpm, 124)).toBe(true);
  });

  it('stops the worker thread when aborted', async () => {
    const path = await writeWav(dir, 't124c', renderGroove(tempoClip(124), 8));
    const ac = new AbortController();
    const p = analyzeAudioInThread({ mixPath: path, signal: ac.signal });
    ac.abort();
    await expect(p).rejects.toThrow(/aborted/);
  });
});
