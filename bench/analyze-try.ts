import { analyzeAudioDetailed } from '../src/analysis/analyze-audio.ts';
for (const f of process.argv.slice(2)) {
  const t = performance.now();
  const r = await analyzeAudioDetailed({ mixPath: f });
  console.log(f.split('/').pop(), JSON.stringify(r), ((performance.now() - t) / 1000).toFixed(2) + 's');
}
