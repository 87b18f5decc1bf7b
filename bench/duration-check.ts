/**
 * Benchmark: the cost of measuring an input's duration by decoding it (what billing uses since
 * issue 14, `src/uploads/measure.ts`) against reading the container header with ffprobe (what it
 * used before), on a 60-minute MP3 (128 kbps, 44.1 kHz stereo, 57.6 MB), the longest file the default
 * limits accept. Alternating runs, medians of wall time and of ffmpeg/ffprobe CPU time (children's
 * user+system from /proc). The file is generated once into the temp folder (about 40 s of CPU).
 *   node bin/run-ts.mjs bench/duration-check.ts [runs per side, default 3] [file]
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { probeAudio } from '../src/audio/probe.ts';
import { countingRate, measureDecodedLength } from '../src/audio/decoded-length.ts';
import { median } from '../support/median.ts';

const runs = Number(process.argv[2] ?? 3);
const file = process.argv[3] ?? join(tmpdir(), 'stemforge-bench-60min.mp3');
if (!existsSync(file)) {
  console.log(`generating ${file} (60 min MP3)...`);
  execFileSync('ffmpeg', [
    '-nostdin',
    '-v',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    'sine=frequency=220:duration=3600',
    '-f',
    'lavfi',
    '-i',
    'anoisesrc=color=pink:amplitude=0.1:duration=3600',
    '-filter_complex',
    '[0:a][1:a]amerge=inputs=2[a]',
    '-map',
    '[a]',
    '-ar',
    '44100',
    '-ac',
    '2',
    '-c:a',
    'libmp3lame',
    '-b:a',
    '128k',
    file,
  ]);
}

/** CPU seconds used by this process's finished children (Linux /proc; 0 elsewhere). */
function childCpuSeconds(): number {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
    // After "pid (comm) ": state is field 3; cutime and cstime are fields 16 and 17.
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return 0;
  }
}

const sides = {
  'header (ffprobe)': async () => (await probeAudio(file)).durationSeconds,
  'decode (ffprobe + count)': async () => {
    const probe = await probeAudio(file);
    return (await measureDecodedLength(file, { sampleRate: countingRate(probe.sampleRate) })).seconds;
  },
} as const;

const results: Record<string, { wall: number[]; cpu: number[]; seconds: number }> = {};
for (let i = 0; i < runs; i++) {
  const order = i % 2 ? Object.entries(sides).reverse() : Object.entries(sides);
  for (const [name, run] of order) {
    const cpu0 = childCpuSeconds();
    const t0 = performance.now();
    const seconds = await run();
    const wall = (performance.now() - t0) / 1000;
    results[name] ??= { wall: [], cpu: [], seconds };
    results[name].wall.push(wall);
    results[name].cpu.push(childCpuSeconds() - cpu0);
  }
}

console.log(
  `node ${process.version}, ffmpeg ${execFileSync('ffmpeg', ['-version']).toString().split(' ')[2]}, ${cpus()[0]?.model} x${cpus().length}, ` +
    `${(statSync(file).size / 1e6).toFixed(1)} MB file, ${runs} alternating runs per side`,
);
for (const [name, r] of Object.entries(results)) {
  console.log(
    `${name.padEnd(26)} says ${r.seconds.toFixed(2).padStart(8)} s   wall ${median(r.wall).toFixed(2).padStart(6)} s   ffmpeg CPU ${median(r.cpu).toFixed(2).padStart(6)} s`,
  );
}
