/**
 * Benchmark: how the TypeScript sources are run. Start-up time and memory of a process that loads
 * the whole API (config, runtime, HTTP app and their dependencies) through tsx's loader, against
 * Node's own TypeScript support (`--experimental-transform-types`, which also covers the parameter
 * properties that plain type stripping refuses). Alternating runs, medians.
 *   node bin/run-ts.mjs bench/startup.ts [runs per side, default 7]
 */
import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';
import { median } from '../support/median.ts';

const runs = Number(process.argv[2] ?? 7);
const probe =
  "const t0 = performance.now(); await import('./src/cli/serve.ts'); await import('./src/runtime.ts'); " +
  "await import('./src/app/build-app.ts'); console.log(JSON.stringify({ ms: performance.now() - t0, rssMb: process.memoryUsage().rss / 1e6 }))";

const sides = {
  tsx: ['--import', 'tsx/esm', '--input-type=module', '-e', probe],
  'node transform-types': ['--experimental-transform-types', '--no-warnings', '--input-type=module', '-e', probe],
} as const;

const results: Record<string, { wallMs: number[]; importMs: number[]; rssMb: number[] }> = {};
for (let i = 0; i < runs; i++) {
  for (const [name, args] of Object.entries(sides)) {
    const t0 = performance.now();
    const out = execFileSync(process.execPath, args, { encoding: 'utf8' });
    const wallMs = performance.now() - t0;
    const { ms, rssMb } = JSON.parse(out.trim().split('\n').pop()!) as { ms: number; rssMb: number };
    results[name] ??= { wallMs: [], importMs: [], rssMb: [] };
    results[name].wallMs.push(wallMs);
    results[name].importMs.push(ms);
    results[name].rssMb.push(rssMb);
  }
}

console.log(`node ${process.version}, ${cpus()[0]?.model} x${cpus().length}, ${runs} alternating runs per side`);
const rows = Object.entries(results).map(([name, r]) => ({
  name,
  wall: median(r.wallMs),
  imports: median(r.importMs),
  rss: median(r.rssMb),
}));
for (const r of rows)
  console.log(
    `${r.name.padEnd(22)} process ${r.wall.toFixed(0).padStart(5)} ms   imports ${r.imports.toFixed(0).padStart(5)} ms   RSS ${r.rss.toFixed(0)} MB`,
  );
const [a, b] = rows;
if (a && b)
  console.log(
    `ratio ${b.name} / ${a.name}: process x${(b.wall / a.wall).toFixed(2)}, imports x${(b.imports / a.imports).toFixed(2)}, RSS x${(b.rss / a.rss).toFixed(2)}`,
  );
