import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { sharedPath } from '../support/shared.ts';
import {
  buildImage,
  IMAGE,
  podman,
  podmanMissing,
  removeContainers,
  runContainer,
  waitForLog,
} from './container/podman.ts';
import { TEST_POSTGRES_URL } from './helpers/db.ts';
import { remoteClient, runFastFourStems } from './helpers/jobs.ts';
import { s3Settings, startS3Server, type TestS3Server } from './helpers/s3-server.ts';
import { freePort } from './helpers/server.ts';
import { printedApiKey } from './helpers/stemforge-process.ts';

/** Uploads the clip, runs a FOUR_STEMS FAST job to the end and fetches one stem; returns the job. */
async function fastJob(api: ReturnType<typeof remoteClient>, key: string) {
  const job = await runFastFourStems(api, key, sharedPath('audio', 'musdb-falcon69', 'mixture.wav'));
  expect(job.status, JSON.stringify(job.error ?? null)).toBe('COMPLETED');
  expect(Object.keys(job.outputs).sort()).toEqual(['bass', 'drums', 'other', 'vocals']);
  const stem = await fetch(job.outputs.vocals.url);
  expect(stem.status).toBe(200);
  expect((await stem.arrayBuffer()).byteLength).toBeGreaterThan(10_000);
  return job as { id: string };
}

const keyOf = (out: string) => {
  const key = printedApiKey(out);
  if (!key) throw new Error(`no API key in the container's output:\n${out}`);
  return key;
};

// Where podman cannot run, the test says why and is skipped; .ci/run requires it
// (STEMFORGE_CONTAINER_TEST=required), so CI fails rather than passing without it.
const missing = podmanMissing();
const required = process.env.STEMFORGE_CONTAINER_TEST === 'required';
if (missing && !required) console.warn(`container test skipped: ${missing}`);

/**
 * Issue 28: the Dockerfile, built unchanged on a local stand-in of node:24-bookworm-slim, runs the
 * service embedded (key printed, a FAST job through the API with the models volume mounted
 * read-only, the key still valid in a new container on the same volume) and scale-out (an API
 * container and a worker container against this machine's PostgreSQL and Redis and an S3 server).
 */
describe.skipIf(missing !== undefined && !required)('the container image (podman)', () => {
  const tag = randomBytes(4).toString('hex');
  const containers: string[] = [];
  const volume = `sf-test-${tag}`;
  const database = `sf_container_${tag}`;
  let s3: TestS3Server | undefined;

  beforeAll(async () => {
    if (missing) throw new Error(`the container test cannot run: ${missing}`);
    await buildImage();
  }, 1_800_000);

  afterAll(async () => {
    await removeContainers(containers);
    await podman(['volume', 'rm', '-f', volume]).catch(() => undefined);
    await s3?.close();
    const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
  });

  it('runs embedded as a non-root user with a read-only root (only /data writable), a read-only models volume, no zombie, and keeps its data across containers', async () => {
    // Issue 42: a lean image (at most 1.0 GB, no tsx or esbuild) that runs locked down.
    expect(Number(await podman(['image', 'inspect', '--format', '{{.Size}}', IMAGE]))).toBeLessThanOrEqual(1.0e9);
    const port = await freePort();
    const args = [
      // Docker's --read-only: no writable /tmp either (podman adds a /tmp tmpfs unless told not to).
      '--read-only',
      '--read-only-tmpfs=false',
      '-e',
      `PORT=${port}`,
      '-e',
      'HOST=127.0.0.1',
      '-v',
      `${volume}:/data`,
      '-v',
      `${sharedPath('models')}:/models:ro`,
      '-e',
      'STEMFORGE_MODELS_DIR=/models',
      IMAGE,
    ];
    const first = await runContainer(args);
    containers.push(first);
    const out = await waitForLog(first, /Stemforge listening/);
    const key = keyOf(out);
    expect(out).toMatch(/Dashboard: .*\n\s+Email: +admin@localhost\n\s+Password: +\S+/);
    expect(out).toMatch(/^ffmpeg: the bundled ffmpeg 5\.1\.4 as WebAssembly/m);
    expect(await podman(['exec', first, 'id', '-u'])).toBe('1000');
    for (const path of ['/tmp/x', '/app/x', '/home/node/x']) {
      await expect(podman(['exec', first, 'touch', path])).rejects.toThrow(/Read-only file system/);
    }
    await podman(['exec', first, 'touch', '/data/x']);
    expect(
      await podman(['exec', first, 'sh', '-c', 'ls -d /app/node_modules/tsx /app/node_modules/esbuild; true']),
    ).toBe('');
    // The banner's hint works as printed: the command line inside the running container.
    const account = /Account: (acc\S*)/.exec(out)?.[1];
    expect(out).toContain(`More keys: docker exec <container> stemforge keys create --account ${account}`);
    expect(await podman(['exec', first, 'stemforge', 'keys', 'list', '--account', account!])).toContain(
      key.slice(0, 12),
    );
    // The image's HEALTHCHECK passes once the API answers.
    await podman(['healthcheck', 'run', first]);
    const api = remoteClient(`http://127.0.0.1:${port}`);
    const job = await fastJob(api, key);
    // tini is PID 1 and reaps: after the separation no process is left a zombie (state Z).
    expect(await podman(['exec', first, 'cat', '/proc/1/comm'])).toBe('tini');
    const states = await podman(['exec', first, 'sh', '-c', "cat /proc/[0-9]*/stat | awk '{ print $2, $3 }'"]);
    expect(states.split('\n').filter((line) => line.endsWith(' Z'))).toEqual([]);

    await podman(['stop', '-t', '30', first]);
    const second = await runContainer(args);
    containers.push(second);
    const again = await waitForLog(second, /Stemforge listening/);
    expect(again).not.toMatch(/API key:/);
    expect((await api.api('/v1/balance', { key })).status).toBe(200);
    const kept = (await (await api.api(`/v1/jobs/${job.id}`, { key })).json()) as { status: string };
    expect(kept.status).toBe('COMPLETED');
  }, 900_000);

  it('runs scale-out: `serve --no-workers` and `worker` containers share PostgreSQL, Redis and S3', async () => {
    const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    await admin.end();
    s3 = await startS3Server();
    const port = await freePort();
    const env = {
      STEMFORGE_MODE: 'scale-out',
      DATABASE_URL: TEST_POSTGRES_URL.replace(/\/[^/]*$/, `/${database}`),
      REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
      REDIS_PREFIX: `sf-container-${tag}`,
      ...s3Settings(s3),
      STEMFORGE_SIGNING_SECRET: randomBytes(32).toString('hex'),
      PORT: String(port),
      HOST: '127.0.0.1',
    };
    const envArgs = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    const apiContainer = await runContainer([...envArgs, IMAGE, 'serve', '--no-workers']);
    containers.push(apiContainer);
    const key = keyOf(await waitForLog(apiContainer, /Stemforge listening/));
    const worker = await runContainer([...envArgs, IMAGE, 'worker']);
    containers.push(worker);
    await waitForLog(worker, /Stemforge worker started/);
    await fastJob(remoteClient(`http://127.0.0.1:${port}`), key);
  }, 900_000);
});
