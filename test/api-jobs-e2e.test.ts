import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { uploadFile, waitForJob } from './helpers/jobs.ts';
import { sharedPath } from '../support/shared.ts';
import { snrDb } from './helpers/snr.ts';
import { startWorkers, type Workers } from '../src/worker/start.ts';
import { probeAudio } from '../src/audio/probe.ts';
import { decodeToPlanar } from '../support/decode-planar.ts';
import { getBalanceSeconds, listLedger } from '../src/store/credits.ts';
import { sweepExpired } from '../src/worker/retention.ts';

const sumOf = (parts: Float32Array[][]) =>
  parts[0]!.map((_, c) => {
    const n = Math.min(...parts.map((p) => p[c]!.length));
    const out = new Float32Array(n);
    for (const p of parts) for (let i = 0; i < n; i++) out[i]! += p[c]![i]!;
    return out;
  });

/** The whole product path with the real HTDemucs model: upload, create, poll, download, check audio. */
describe('stem jobs end to end (real separation)', () => {
  let s: TestServer;
  let workers: Workers;
  let user: { id: string; key: string };
  let upload: string;
  const input = sharedPath('audio', 'musdb-falcon69', 'mixture.wav');

  beforeAll(async () => {
    s = await startTestServer('sqlite', {
      STEMFORGE_MODELS_DIR: sharedPath('models'),
      WORKER_CONCURRENCY: '1',
      RATE_LIMIT_PER_MINUTE: '100000',
    });
    workers = await startWorkers(s.rt);
    user = await s.newAccount(300);
    upload = await uploadFile(s, user.key, input, 'Falcon 69.wav');
  });
  afterAll(async () => {
    await workers?.stop();
    await s?.close();
  });

  const cases = [
    { outputType: 'BOTH', outputFormat: 'WAV', stems: ['vocals', 'instrumental'], ext: 'wav', type: 'audio/wav' },
    {
      outputType: 'FOUR_STEMS',
      outputFormat: 'WAV',
      stems: ['vocals', 'drums', 'bass', 'other'],
      ext: 'wav',
      type: 'audio/wav',
    },
    { outputType: 'VOCALS', outputFormat: 'MP3', stems: ['vocals'], ext: 'mp3', type: 'audio/mpeg' },
    { outputType: 'INSTRUMENTAL', outputFormat: 'FLAC', stems: ['instrumental'], ext: 'flac', type: 'audio/flac' },
  ] as const;

  test.each(cases)('$outputType as $outputFormat completes with downloadable stems', async (c) => {
    const before = await getBalanceSeconds(s.rt.db, user.id);
    const created: any = await (
      await s.api('/v1/jobs', {
        key: user.key,
        method: 'POST',
        json: { uploadKey: upload, outputType: c.outputType, outputFormat: c.outputFormat, quality: 'FAST' },
      })
    ).json();
    expect(created.status).toBe('PENDING');
    const { job, progress } = await waitForJob(s, user.key, `/v1/jobs/${created.id}`);
    expect(job.errorMessage).toBeNull();
    expect(job.status).toBe('COMPLETED');
    expect(job.progress).toBe(100);
    for (let i = 1; i < progress.length; i++) expect(progress[i]).toBeGreaterThanOrEqual(progress[i - 1]!);
    expect(job.creditsCharged).toBe(created.creditsRequired);
    expect(job.creditsCharged).toBe(job.input.durationSeconds);
    expect(await getBalanceSeconds(s.rt.db, user.id)).toBe(before - job.creditsCharged);
    expect(job.startedAt).toBeTruthy();
    expect(job.completedAt).toBeTruthy();
    expect(new Date(job.expiresAt).getTime()).toBeGreaterThan(Date.now());
    expect(Object.keys(job.outputs).sort()).toEqual([...c.stems].sort());

    const decoded: Record<string, Float32Array[]> = {};
    for (const stem of c.stems) {
      const entry = job.outputs[stem];
      const ttl = new Date(entry.expiresAt).getTime() - Date.now();
      expect(ttl).toBeGreaterThan(3500_000);
      expect(ttl).toBeLessThanOrEqual(3600_000);
      const res = await fetch(entry.url);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe(c.type);
      expect(res.headers.get('content-disposition')).toContain(`Falcon 69-${stem}.${c.ext}`);
      const bytes = Buffer.from(await res.arrayBuffer());
      expect(Number(res.headers.get('content-length'))).toBe(bytes.length);
      const ranged = await fetch(entry.url, { headers: { range: 'bytes=0-99' } });
      expect(ranged.status).toBe(206);
      expect((await ranged.arrayBuffer()).byteLength).toBe(100);
      const file = join(s.dataDir, `${created.id}-${stem}.${c.ext}`);
      await writeFile(file, bytes);
      const probe = await probeAudio(file);
      expect(probe.durationSeconds).toBeGreaterThan(5.9);
      expect(probe.durationSeconds).toBeLessThan(6.2);
      if (c.ext !== 'mp3') decoded[stem] = (await decodeToPlanar(file)).channels;
    }
    if (c.outputFormat === 'WAV') {
      // The stems must add back up to the input (16-bit WAV, so the sum is near exact).
      const mix = (await decodeToPlanar(input)).channels;
      const snr = snrDb(mix, sumOf(c.stems.map((stem) => decoded[stem]!)));
      expect(snr).toBeGreaterThan(c.outputType === 'BOTH' ? 30 : 15);
    }
    // A second read signs fresh URLs.
    const again: any = await (await s.api(`/v1/jobs/${created.id}`, { key: user.key })).json();
    expect(again.outputs[c.stems[0]].url).toBeTruthy();
  });

  test('expiry deletes outputs: EXPIRED, outputs null, old links dead', async () => {
    const { rows } = await import('../src/store/jobs.ts').then((m) =>
      m.listJobs(s.rt.db, { accountId: user.id, kind: 'stem', limit: 1, offset: 0 }),
    );
    const id = rows[0]!.id;
    const detail: any = await (await s.api(`/v1/jobs/${id}`, { key: user.key })).json();
    const url = Object.values(detail.outputs as Record<string, { url: string }>)[0]!.url;
    const swept = await sweepExpired(s.rt, new Date(Date.now() + 48 * 3600_000));
    expect(swept.jobs).toBeGreaterThan(0);
    const expired: any = await (await s.api(`/v1/jobs/${id}`, { key: user.key })).json();
    expect(expired.status).toBe('EXPIRED');
    expect(expired.outputs).toBeNull();
    expect((await fetch(url)).status).toBe(404);
    const ledger = await listLedger(s.rt.db, user.id);
    expect(ledger.filter((l) => l.job_id === id && l.kind === 'charge')).toHaveLength(1);
  });
});
