import { TEMPO_CLIPS, KEY_CLIPS } from './fixtures/synth-clips.ts';
import { analyzeAudioDetailed } from '../src/analysis/analyze-audio.ts';
let ok = 0, okd = 0;
for (const c of TEMPO_CLIPS) {
  const r = await analyzeAudioDetailed({ mixPath: `/tmp/sfclips/${c.name}.wav` });
  const e = Math.abs(r.bpm! / c.bpm - 1);
  const good = e <= 0.04; const d = [1, 2, 0.5, 3, 1/3].some((f) => Math.abs(r.bpm! / (c.bpm * f) - 1) <= 0.04);
  ok += +good; okd += +d;
  if (!good || process.env.V) console.log(c.name, r.bpm, r.tempoConfidence, good ? '' : 'MISS');
}
console.log('tempo', ok, okd, '/', TEMPO_CLIPS.length);
let k = 0;
for (const c of KEY_CLIPS) {
  const r = await analyzeAudioDetailed({ mixPath: `/tmp/sfclips/${c.name}.wav` });
  const hit = r.key === c.key; k += +hit;
  if (!hit || process.env.V) console.log(c.name, c.key, '->', r.key, r.keyScore, r.keyMargin, r.tuningCents, c.cents);
}
console.log('key exact', k, '/', KEY_CLIPS.length);
