import { readdir, readFile } from 'node:fs/promises';
import { Gauge, type Registry } from 'prom-client';

/**
 * What a process is started for, as its memory is reported: `main` is this process with its threads
 * (voice cleaning and BPM/key analysis run in threads), `separation` the separation processes (one
 * per concurrent job, each holds its model), `ffmpeg` the decoders and encoders, `other` anything
 * else (yt-dlp).
 */
const PROCESS_ROLES = ['main', 'separation', 'ffmpeg', 'other'] as const;
type Role = (typeof PROCESS_ROLES)[number];

/**
 * `stemforge_processes_resident_memory_bytes{role}`: the resident memory of this process and of
 * every process it started (children's children included), summed by role, read at each scrape.
 * Node's own `process_resident_memory_bytes` covers this process only, which left out the
 * separation processes, most of a worker's memory. Linux's /proc is read; elsewhere only `main`
 * moves.
 */
export function registerProcessMemoryGauge(registry: Registry, prefix: string): void {
  new Gauge({
    name: `${prefix}processes_resident_memory_bytes`,
    help: 'Resident memory of this process (main, its threads included) and the processes it started, by role.',
    labelNames: ['role'],
    registers: [registry],
    async collect() {
      const bytes: Record<Role, number> = { main: process.memoryUsage.rss(), separation: 0, ffmpeg: 0, other: 0 };
      for (const pid of await descendants(process.pid)) {
        const found = await residentBytes(pid);
        if (found) bytes[found.role] += found.bytes;
      }
      for (const role of PROCESS_ROLES) this.set({ role }, bytes[role]);
    },
  });
}

/** Every process started by `pid` or by one of them (their threads' children included). */
async function descendants(pid: number): Promise<number[]> {
  const found: number[] = [];
  const queue = [pid];
  for (let p = queue.pop(); p !== undefined; p = queue.pop()) {
    const tasks = await readdir(`/proc/${p}/task`).catch(() => [] as string[]);
    for (const task of tasks) {
      const children = await readFile(`/proc/${p}/task/${task}/children`, 'utf8').catch(() => '');
      for (const child of children.split(' ').filter(Boolean).map(Number)) {
        found.push(child);
        queue.push(child);
      }
    }
  }
  return found;
}

/** A process's resident memory and role; null once it has exited. */
async function residentBytes(pid: number): Promise<{ role: Role; bytes: number } | null> {
  const [status, cmdline] = await Promise.all([
    readFile(`/proc/${pid}/status`, 'utf8').catch(() => null),
    readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => ''),
  ]);
  const kb = status ? /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] : undefined;
  if (!status || kb === undefined) return null;
  const name = /^Name:\s+(\S+)/m.exec(status)?.[1] ?? '';
  const role: Role = cmdline.includes('engine-process')
    ? 'separation'
    : name === 'ffmpeg' || name === 'ffprobe'
      ? 'ffmpeg'
      : 'other';
  return { role, bytes: Number(kb) * 1024 };
}
