import { decodeAudio } from '../src/audio/decode.ts';
import { OnsetEnvelope } from '../src/analysis/onset-envelope.ts';
import { estimateTempo } from '../src/analysis/tempo.ts';
for (const f of process.argv.slice(2)) {
const o = new OnsetEnvelope(22050);
for await (const c of decodeAudio(f, { sampleRate: 22050, channels: 1 })) o.push(c);
const r = estimateTempo(o.envelope(), o.frameRate)!;
const c = r.candidates;
const peaks = c.filter((x, i) => i > 0 && i < c.length - 1 && x.score >= c[i - 1].score && x.score > c[i + 1].score).sort((a, b) => b.score - a.score).slice(0, 8);
console.log(f.split('/').pop(), r.bpm, r.confidence.toFixed(2), peaks.map((p) => `${p.bpm}:${p.score.toFixed(3)}`).join(' '));
}
