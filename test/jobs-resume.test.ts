import { afterAll, describe, expect, test } from 'vitest';
import { execFileSync, type ChildProcess } from 'node:child_process';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { embeddedServer } from './helpers/embedded-server.ts';
import { apiClient } from './helpers/api-client.ts';
import { printedApiKey, type StemforgeProcess } from './helpers/stemforge-process.ts';
import { sharedPath } from '../support/shared.ts';
import { connectDatabase } from '../src/store/db.ts';

/**
 * Issue 40, long jobs survive deaths: a separation interrupted by a death goes on from its last
 * finished segment. One job loses its separation process (as the kernel's OOM killer would kill it)
 * and then its whole server (kill -9); it completes, its stems are byte for byte those of the same
 * job run without a death, and each run after a death started where the one before stopped.
 */
describe('a separation resumes from its checkpoint after deaths', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  test('separation process killed, then the server killed: same stems as an uninterrupted run', async () => {
    const embedded = await embeddedServer({ JOB_RETRY_BASE_MS: '0', LOG_LEVEL: 'info' });
    const { dataDir } = embedded;
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    let server: StemforgeProcess = await embedded.start();
    cleanups.push(() => server.stop());
    const key = printedApiKey(server.out());
    expect(key).toBeTruthy();
    const s = apiClient(embedded.base, key!);
    // 25 s: four FAST segments.
    const track = sharedPath('audio', 'music', 'admiralbob77_-_Choice_-_Drum-bass.hq.ogg');
    const newJob = () => s.createJob(track, { outputType: 'BOTH', quality: 'FAST', outputFormat: 'WAV' });
    const stems = async (id: string) => {
      const job = await s.ended(id);
      expect(job.status).toBe('COMPLETED');
      const out: Record<string, Buffer> = {};
      for (const stem of ['vocals', 'instrumental']) {
        const res = await fetch(job.outputs[stem].url);
        expect(res.status).toBe(200);
        out[stem] = Buffer.from(await res.arrayBuffer());
      }
      return { job, out };
    };
    /**
     * Waits until the separation has kept `segments` of its four: separating spans progress 15-80,
     * and between two segments progress creeps at most 95 % of the way to the next one's value.
     */
    const separatedPast = async (id: string, segments: number) => {
      for (;;) {
        const job = await s.job(id);
        expect(job.status).not.toBe('COMPLETED');
        if (job.progressPhase === 'separating' && job.progress >= Math.floor(15 + (segments / 4) * 65)) return;
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    const resumedAt = (out: string) =>
      out
        .split('\n')
        .filter((l) => l.includes('separation resumes from its checkpoint') && l.includes(id))
        .map((l) => JSON.parse(l).done as number);

    const reference = await stems(await newJob());

    const id = await newJob();
    // 1. Its separation process dies: the attempt fails and is retried, from the first segment kept.
    await separatedPast(id, 1);
    process.kill(separationProcess(server.child), 'SIGKILL');
    // 2. Past the third segment, the whole server dies; a new one takes the job from the third.
    await separatedPast(id, 3);
    server.child.kill('SIGKILL');
    await new Promise((r) => server.child.once('exit', r));
    const first = server.out();
    server = await embedded.start();
    const resumed = await stems(id);

    expect(resumed.out.vocals!.equals(reference.out.vocals!)).toBe(true);
    expect(resumed.out.instrumental!.equals(reference.out.instrumental!)).toBe(true);
    // Where each run after a death started: after the segments kept when it died (one more may
    // have finished between the poll and the kill).
    const [second, ...more] = resumedAt(first);
    expect(more).toEqual([]);
    expect([0.25, 0.5]).toContain(second);
    const [third, ...rest] = resumedAt(server.out());
    expect(rest).toEqual([]);
    expect([0.75, 1]).toContain(third);
    const retried = await readJobRow(dataDir, id);
    expect(retried).toMatchObject({ attempts: 2, crashes: 1, stalled_crashes: 1, status: 'COMPLETED' });
    // The checkpoints went with the job.
    expect(await readdir(join(dataDir, 'checkpoints')).catch(() => [])).toEqual([]);
  }, 600_000);
});

/** The separation process of a server: its child running the engine. */
function separationProcess(server: ChildProcess): number {
  const lines = execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' }).split('\n');
  const found = lines
    .map((l) => l.trim().split(/\s+/))
    .find(([, ppid, ...args]) => Number(ppid) === server.pid && args.join(' ').includes('engine-process'));
  if (!found?.[0]) throw new Error('no separation process found');
  return Number(found[0]);
}

async function readJobRow(dataDir: string, id: string) {
  const db = await connectDatabase(`sqlite:${join(dataDir, 'stemforge.db')}`);
  try {
    return await db.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  } finally {
    await db.close();
  }
}
