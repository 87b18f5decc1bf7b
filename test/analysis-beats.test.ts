import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeAudioDetailed } from '../src/analysis/analyze-audio.ts';
import { barStarts, chordTimeAccuracy, popProgression, renderChordClip } from '../support/fixtures/chord-clips.ts';
import { METER_CLIPS, renderMeter } from '../support/fixtures/meter-clips.ts';
import { renderGroove, SYNTH_RATE, TEMPO_CLIPS, writeWav } from '../support/fixtures/synth-clips.ts';
import { addDrum, addTone, midiHz, rng } from '../support/fixtures/synth-voices.ts';
import { beatFMeasure } from '../support/beat-metrics.ts';
import { median } from '../support/median.ts';
import { sharedPath } from '../support/shared.ts';

// Beats, downbeats and chords through real ffmpeg decoding, on audio whose beats and chords are
// known because it was synthesised from them; and the beat spacing of a real recording whose
// tempo is labelled. The labelled real-music sets are in bench/analyze-beats.ts (docs/analysis.md).
let dir: string;
const SECONDS = 20;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'stemforge-beats-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const grid = (start: number, period: number, seconds: number) => {
  const out: number[] = [];
  for (let t = start; t < seconds; t += period) out.push(t);
  return out;
};

describe('beats of grooves with known beats (F-measure, 70 ms)', () => {
  for (const name of ['tempo-90-dembow', 'tempo-124-house', 'tempo-145-techno', 'tempo-174-dnb', 'tempo-70-boombap']) {
    it(`tracks ${name}`, async () => {
      const clip = TEMPO_CLIPS.find((c) => c.name === name)!;
      const path = await writeWav(dir, name, renderGroove(clip, SECONDS));
      const r = await analyzeAudioDetailed({ mixPath: path });
      const ref = grid(0.05, 60 / clip.bpm, SECONDS);
      const f = beatFMeasure(ref, r.beats, 0.07, 2);
      expect(f, `F ${f.toFixed(3)}, beats ${r.beats.slice(0, 8).join(' ')}`).toBeGreaterThanOrEqual(0.9);
      // downbeats are beats, and bars hold 4 of them
      for (const d of r.downbeats) expect(r.beats).toContain(d);
      expect(r.beatsPerBar).toBe(4);
      expect(r.beatConfidence).toBeGreaterThan(0.3);
    });
  }

  // Off-beat comping (ska, reggae, stride): a bass note on every beat, a bright four-note chord on
  // every off-beat. The chords' onsets outweigh the bass notes' in the broadband envelope, so the
  // first chain sits on the off-beats (F 0 at all three tempi before the low-band phase check); the
  // bass notes' accents below 250 Hz put it back on the beats.
  for (const bpm of [96, 120, 150]) {
    it(`keeps the beat under off-beat chords at ${bpm} BPM`, async () => {
      const out = new Float32Array(SECONDS * SYNTH_RATE);
      const rand = rng(bpm);
      const period = 60 / bpm;
      const roots = [45, 45, 38, 40];
      const ref = grid(0.05, period, SECONDS - 0.5);
      ref.forEach((t, k) => {
        const root = roots[Math.floor(k / 4) % 4]!;
        const jitter = () => (rand() - 0.5) * 0.01;
        addTone(out, SYNTH_RATE, midiHz(root - 12), t + jitter(), period * 0.8, 0.5, {
          harmonics: 3,
          tilt: 2,
          decay: 0.5,
        });
        for (const interval of [12, 16, 19, 24])
          addTone(out, SYNTH_RATE, midiHz(root + 12 + interval), t + period / 2 + jitter(), period * 0.3, 0.12, {
            decay: 0.3,
          });
      });
      const r = await analyzeAudioDetailed({ mixPath: await writeWav(dir, `offbeat-chords-${bpm}`, out) });
      expect(r.bpm).toBeCloseTo(bpm, -1);
      const f = beatFMeasure(ref, r.beats, 0.07, 2);
      expect(f, `F ${f.toFixed(3)}, beats ${r.beats.slice(0, 8).join(' ')}`).toBeGreaterThanOrEqual(0.9);
    });
  }

  it('places beats on the onsets, not a frame late or early (median error under 25 ms)', async () => {
    // Clicks: a kick every 0.5 s, nothing else.
    const out = new Float32Array(SECONDS * SYNTH_RATE);
    const rand = rng(7);
    const ref = grid(0.25, 0.5, SECONDS - 0.5);
    for (const t of ref) addDrum(out, SYNTH_RATE, 'kick', t, 0.9, rand);
    const r = await analyzeAudioDetailed({ mixPath: await writeWav(dir, 'clicks', out) });
    const errors = r.beats.map((b) => Math.min(...ref.map((t) => Math.abs(b - t))));
    expect(median(errors)).toBeLessThan(0.025);
    expect(r.beats.length).toBeGreaterThanOrEqual(ref.length - 4);
  });
});

describe('downbeats and beats per bar', () => {
  for (const name of ['slow-waltz-3-4', 'viennese-waltz-3-4', 'slow-blues-12-8', 'shuffle-12-8']) {
    it(`finds the bars of ${name}`, async () => {
      const clip = METER_CLIPS.find((c) => c.name === name)!;
      const path = await writeWav(dir, name, renderMeter(clip, SECONDS));
      const r = await analyzeAudioDetailed({ mixPath: path });
      const beat = 60 / clip.bpm;
      const beats = grid(0.05, beat, SECONDS);
      const bars = grid(0.05, beat * clip.beats, SECONDS);
      expect(beatFMeasure(beats, r.beats, 0.07, 2)).toBeGreaterThanOrEqual(0.9);
      expect(r.beatsPerBar).toBe(clip.beats);
      const f = beatFMeasure(bars, r.downbeats, 0.07, 2);
      expect(f, `downbeats ${r.downbeats.slice(0, 6).join(' ')}`).toBeGreaterThanOrEqual(0.9);
    });
  }
});

describe('chords', () => {
  const cases = [
    { tonic: 0, bpm: 100, drums: false, cents: 0 },
    { tonic: 0, bpm: 120, drums: true, cents: 0 },
    { tonic: 7, bpm: 90, drums: false, cents: 20 },
    { tonic: 3, bpm: 132, drums: true, cents: -15 },
    { tonic: 6, bpm: 76, drums: false, cents: 0 },
  ];
  for (const c of cases) {
    const clip = popProgression(c.tonic, c);
    it(`reads ${clip.chords.join('-')} at ${c.bpm} BPM${c.drums ? ' with drums' : ''} right most of the time`, async () => {
      const path = await writeWav(dir, `${clip.name}-${c.drums}`, renderChordClip(clip, SECONDS));
      const r = await analyzeAudioDetailed({ mixPath: path });
      const accuracy = chordTimeAccuracy(clip, r.chords, 0.5, SECONDS - 0.5);
      expect(accuracy, r.chords.map((s) => `${s.start}:${s.chord}`).join(' ')).toBeGreaterThanOrEqual(0.75);
      // the chords tile the input and name chords as the key names are spelled
      expect(r.chords[0]!.start).toBe(0);
      for (let i = 1; i < r.chords.length; i++) expect(r.chords[i]!.start).toBe(r.chords[i - 1]!.end);
      for (const s of r.chords) {
        expect(s.chord).toMatch(/^(N|(C|C#|Db|D|Eb|E|F|F#|G|G#|Ab|A|Bb|B)m?)$/);
        expect(s.confidence).toBeGreaterThanOrEqual(0);
        expect(s.confidence).toBeLessThanOrEqual(1);
      }
      // the changes fall on the bar lines
      const starts = barStarts(clip, SECONDS);
      const changes = r.chords.slice(1).map((s) => s.start);
      const near = changes.filter((t) => starts.some((b) => Math.abs(b - t) < 0.3)).length;
      expect(near / Math.max(1, changes.length)).toBeGreaterThanOrEqual(0.75);
    });
  }

  it('reads silence as N, with no beats', async () => {
    const silent = new Float32Array(6 * SYNTH_RATE);
    const s = await analyzeAudioDetailed({ mixPath: await writeWav(dir, 'silence', silent) });
    expect(s.chords.map((c) => c.chord)).toEqual(['N']);
    expect(s.beats).toEqual([]);
    expect(s.beatsPerBar).toBeNull();
  });
});

describe('a real recording with a labelled tempo', () => {
  it('spaces the beats of 126bpm.mp3 at 126 BPM, evenly', async () => {
    const r = await analyzeAudioDetailed({ mixPath: sharedPath('audio', 'tempo-key', '126bpm.mp3'), maxSeconds: 30 });
    const gaps = r.beats.slice(1).map((b, i) => b - r.beats[i]!);
    expect(Math.abs(60 / median(gaps) / 126 - 1)).toBeLessThanOrEqual(0.04);
    const even = gaps.filter((g) => Math.abs(g / (60 / 126) - 1) <= 0.1).length;
    expect(even / gaps.length).toBeGreaterThanOrEqual(0.9);
    expect(r.beats.length).toBeGreaterThanOrEqual(50);
    expect(r.downbeats.length).toBeGreaterThanOrEqual(12);
    expect(r.chords.length).toBeGreaterThan(0);
  });
});
