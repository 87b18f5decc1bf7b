import { mkdirSync } from 'node:fs';
import { TEMPO_CLIPS, KEY_CLIPS, renderGroove, renderKeyClip, writeWav } from './fixtures/synth-clips.ts';
const dir = '/tmp/sfclips'; mkdirSync(dir, { recursive: true });
const t = performance.now();
if (!process.env.NOTEMPO) for (const c of TEMPO_CLIPS) await writeWav(dir, c.name, renderGroove(c, 30));
for (const c of KEY_CLIPS) await writeWav(dir, c.name, renderKeyClip(c, 16));
console.log('rendered', ((performance.now() - t) / 1000).toFixed(1));
