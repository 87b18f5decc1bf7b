import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pullModel } from '../src/models/pull.ts';
import { decodeToPlanar } from '../support/decode-planar.ts';
import { getBalanceSeconds } from '../src/store/credits.ts';
import { startWorkers, type Workers } from '../src/worker/start.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { uploadFile, waitForJob } from './helpers/jobs.ts';
import { sharedPath } from '../support/shared.ts';
import { snrDb } from './helpers/snr.ts';
import { FAKE_GAINS, fakeSixStemModel, SIX_SOURCES } from './helpers/fake-six-stem-model.ts';

/**
 * SIX_STEMS through the API with a FAKE six-source model (no htdemucs_6s weights can be had here;
 * see helpers/fake-six-stem-model.ts): the operator's install path (`models pull` from a URL with a
 * checksum, served on loopback), job creation, the worker, six stems out.
 */
describe('SIX_STEMS jobs end to end (fake six-source model pulled over HTTP)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sf-six-api-'));
  const modelsDir = join(dir, 'models');
  const model = fakeSixStemModel();
  const sha256 = createHash('sha256').update(model).digest('hex');
  const input = sharedPath('audio', 'musdb-falcon69', 'mixture.wav');
  let http: Server;
  let url = '';
  let s: TestServer;
  let workers: Workers | undefined;
  let user: { id: string; key: string };

  beforeAll(async () => {
    http = createServer((_req, res) => void res.writeHead(200, { 'content-length': model.length }).end(model));
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/htdemucs_6s.onnx`;
    s = await startTestServer('sqlite', { STEMFORGE_MODELS_DIR: modelsDir, RATE_LIMIT_PER_MINUTE: '100000' });
    user = await s.newAccount(300);
  });
  afterAll(async () => {
    await workers?.stop();
    await s?.close();
    await new Promise((r) => http.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  const create = async (upload: string) =>
    s.api('/v1/jobs', {
      key: user.key,
      method: 'POST',
      json: { uploadKey: upload, outputType: 'SIX_STEMS', quality: 'BEST', outputFormat: 'WAV' },
    });

  test('before the model is pulled: 400 MODEL_NOT_INSTALLED naming it, nothing held', async () => {
    const upload = await uploadFile(s, user.key, input, 'Falcon 69.wav');
    const res = await create(upload);
    expect(res.status).toBe(400);
    const { error }: any = await res.json();
    expect(error.code).toBe('MODEL_NOT_INSTALLED');
    expect(error.message).toMatch(/npx stemforge models pull htdemucs_6s --url <URL> --sha256 <HEX>/);
    expect(await getBalanceSeconds(s.rt.db, user.id)).toBe(300);
  });

  test('a model removed after the job was accepted fails the job at once and releases the credits', async () => {
    await pullModel('htdemucs_6s', { modelsDir, url, sha256 });
    const created: any = await (await create(await uploadFile(s, user.key, input, 'Falcon 69.wav'))).json();
    expect(created.status).toBe('PENDING');
    rmSync(join(modelsDir, 'htdemucs_6s'), { recursive: true });
    workers = await startWorkers(s.rt);
    const { job } = await waitForJob(s, user.key, `/v1/jobs/${created.id}`);
    expect(job.status).toBe('FAILED');
    expect(job.errorMessage).toMatch(/'htdemucs_6s' model is not installed/);
    expect(await getBalanceSeconds(s.rt.db, user.id)).toBe(300);
  });

  test('after `models pull`: COMPLETED with vocals, drums, bass, other, piano and guitar', async () => {
    await pullModel('htdemucs_6s', { modelsDir, url, sha256 });
    const created: any = await (await create(await uploadFile(s, user.key, input, 'Falcon 69.wav'))).json();
    const { job } = await waitForJob(s, user.key, `/v1/jobs/${created.id}`);
    expect(job.errorMessage).toBeNull();
    expect(job.status).toBe('COMPLETED');
    expect(Object.keys(job.outputs).sort()).toEqual(['bass', 'drums', 'guitar', 'other', 'piano', 'vocals']);
    expect(job.creditsCharged).toBe(job.input.durationSeconds);

    const mix = (await decodeToPlanar(input)).channels;
    for (const stem of SIX_SOURCES) {
      const res = await fetch(job.outputs[stem].url);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-disposition')).toContain(`Falcon 69-${stem}.wav`);
      const file = join(dir, `${stem}.wav`);
      await writeFile(file, Buffer.from(await res.arrayBuffer()));
      // Each stand-in source is its gain times the input (up to the whole-track normalisation's mean).
      const expected = mix.map((ch) => ch.map((v) => v * FAKE_GAINS[stem]!));
      expect(snrDb(expected, (await decodeToPlanar(file)).channels)).toBeGreaterThan(30);
    }
  });
});
