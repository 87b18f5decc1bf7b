import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { s3Settings, startS3Server, type TestS3Server } from './helpers/s3-server.ts';
import { CHROMIUM, ensureWebBuilt, heading, signInAs, watchPage } from './helpers/browser.ts';
import { makeTone } from './helpers/audio.ts';
import { sharedPath } from '../support/shared.ts';
import { startWorkers, type Workers } from '../src/worker/start.ts';
import { createAccount } from '../src/store/accounts.ts';
import { setPasswordHash } from '../src/store/account-passwords.ts';
import { hashPassword } from '../src/accounts/password.ts';
import { findJob } from '../src/store/jobs.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * Issue 30: the dashboard's upload in scale-out on S3 goes from the browser straight to the bucket
 * (the page's CSP allows the store's origin, the bucket's CORS rule allows the PUT), and the job made
 * from it is measured by the worker and charged its decoded length.
 */
describe('dashboard upload straight to S3 in scale-out (Chromium)', () => {
  let s3: TestS3Server;
  let s: TestServer;
  let workers: Workers;
  let browser: Browser;
  let page: Page;
  let dir: string;
  const problems: string[] = [];
  const user = { email: 'direct@example.com', password: 'direct-password-1', id: '' };

  beforeAll(async () => {
    ensureWebBuilt();
    dir = await mkdtemp(join(tmpdir(), 'stemforge-direct-ui-'));
    // The site's port is chosen by the test server, so the rule allows any origin here.
    s3 = await startS3Server('stemforge-direct-ui', { corsOrigin: '*' });
    s = await startTestServer('postgres', {
      STEMFORGE_MODE: 'scale-out',
      REDIS_URL,
      REDIS_PREFIX: `sftest-${randomBytes(4).toString('hex')}`,
      ...s3Settings(s3),
      STEMFORGE_SIGNING_SECRET: randomBytes(32).toString('hex'),
      STEMFORGE_MODELS_DIR: sharedPath('models'),
      WORKER_CONCURRENCY: '1',
      MIN_DURATION_SECONDS: '1',
    });
    workers = await startWorkers(s.rt);
    user.id = (await createAccount(s.rt.db, user.email, 300)).id;
    await setPasswordHash(s.rt.db, user.id, await hashPassword(user.password));
    browser = await chromium.launch(CHROMIUM);
    page = await (await browser.newContext({ viewport: { width: 1100, height: 760 } })).newPage();
    watchPage(page, problems);
  });
  afterAll(async () => {
    await browser?.close();
    await workers?.stop();
    await s?.close();
    await s3?.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('the browser PUTs the file to the bucket; the job is measured by the worker and charged 4 s', async () => {
    const puts: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'PUT') puts.push(r.url());
    });
    await signInAs(page, s.base, user);
    await page.getByRole('link', { name: 'New job' }).first().click();
    await heading(page, 'New job');
    await page.getByLabel('Upload files').check();
    const clip = await makeTone(join(dir, 'tone.wav'), 4);
    await page.getByLabel(/Drop audio files/).setInputFiles({
      name: 'tone.wav',
      mimeType: 'audio/wav',
      buffer: await readFile(clip),
    });
    await page.getByLabel('Output type').selectOption('VOCALS');
    await page.getByLabel('Quality').selectOption('FAST');
    await page.getByRole('button', { name: 'Start job' }).click();
    await page.waitForURL(/\/jobs\/[^/]+$/);
    const jobId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);

    expect(puts).toHaveLength(1);
    expect(puts[0]!.startsWith(`${s3.endpoint}/${s3.bucket}/uploads/`)).toBe(true);
    let row = await findJob(s.rt.db, jobId);
    for (let i = 0; i < 240 && row && !['COMPLETED', 'FAILED'].includes(row.status); i++) {
      await new Promise((r) => setTimeout(r, 500));
      row = await findJob(s.rt.db, jobId);
    }
    expect(row?.error_message ?? null).toBeNull();
    expect(row?.status).toBe('COMPLETED');
    expect(row?.duration_seconds).toBeCloseTo(4, 1);
    expect(row?.credits_charged).toBe(4);
    expect(problems).toEqual([]);
  });
});
