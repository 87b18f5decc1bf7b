import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { startTestServer, type TestServer } from './helpers/server.ts';
import {
  CHROMIUM,
  ensureWebBuilt,
  expectAccessible,
  heading,
  signInAs,
  stepsInOrder,
  watchPage,
} from './helpers/browser.ts';
import { sharedPath } from '../support/shared.ts';
import { holdWholeFileDownloads, STEM_DOWNLOADS } from '../support/hold-downloads.ts';
import { startWorkers, type Workers } from '../src/worker/start.ts';
import { createAccount } from '../src/store/accounts.ts';
import { setPasswordHash } from '../src/store/account-passwords.ts';
import { hashPassword } from '../src/accounts/password.ts';
import { findJob } from '../src/store/jobs.ts';
import { findWebhook, recordDeliveryOutcome } from '../src/store/webhooks.ts';
import { sanitizeFileName } from '../src/domain/formats.ts';

const root = resolve(import.meta.dirname, '..');
/** `UPDATE_SCREENSHOTS=1 npx vitest run test/dashboard-browser.test.ts` refreshes docs/screenshots. */
const screenshots = process.env.UPDATE_SCREENSHOTS === '1';

// A file name a careless page would execute: nothing of it may run. The API stores every client-sent
// name through its one sanitiser, so the page shows (as text) what the server kept.
const HOSTILE_NAME = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>.wav';
const SHOWN_NAME = sanitizeFileName(HOSTILE_NAME);

/**
 * The dashboard in Chromium against the real server, worker and HTDemucs model: sign in, upload a
 * clip, watch it separate, play the stems, keys, webhooks, sign out; XSS, another account's job, and
 * axe-core on every page.
 */
describe('dashboard (Chromium, real server)', () => {
  let s: TestServer;
  let workers: Workers;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  const owner = { email: 'owner@example.com', password: 'owner-password-1', id: '' };
  const stranger = { email: 'stranger@example.com', password: 'stranger-password-1', id: '' };
  let jobId = '';
  let charged = 0;
  const problems: string[] = [];

  const watch = (p: Page) => watchPage(p, problems);

  const axe = expectAccessible;

  const shot = async (p: Page, name: string) => {
    if (!screenshots) return;
    mkdirSync(resolve(root, 'docs/screenshots'), { recursive: true });
    await p.screenshot({ path: resolve(root, `docs/screenshots/${name}.png`) });
  };

  const signIn = (p: Page, who: { email: string; password: string }) => signInAs(p, s.base, who);

  stepsInOrder();

  beforeAll(async () => {
    ensureWebBuilt();
    s = await startTestServer('sqlite', {
      STEMFORGE_MODELS_DIR: sharedPath('models'),
      WORKER_CONCURRENCY: '1',
      ALLOW_PRIVATE_URLS: 'true',
    });
    workers = await startWorkers(s.rt);
    for (const who of [owner, stranger]) {
      who.id = (await createAccount(s.rt.db, who.email, 600)).id;
      await setPasswordHash(s.rt.db, who.id, await hashPassword(who.password));
    }
    browser = await chromium.launch(CHROMIUM);
    ctx = await browser.newContext({ viewport: { width: 1100, height: 760 }, acceptDownloads: true });
    page = await ctx.newPage();
    watch(page);
  });
  afterAll(async () => {
    await browser?.close();
    await workers?.stop();
    await s?.close();
  });

  test('a wrong password is refused with the API message; the right one signs in', async () => {
    await page.goto(`${s.base}/jobs`);
    // Signed out: any page shows the sign-in form and comes back after signing in.
    await heading(page, 'Sign in to Stemforge');
    expect(new URL(page.url()).pathname).toBe('/sign-in');
    await axe(page, 'sign-in');
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill('not-the-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    // The alert may exist (empty or with an earlier word) before the answer: wait for the message itself.
    await page
      .getByRole('alert')
      .filter({ hasText: /password is wrong/i })
      .waitFor();
    await shot(page, 'sign-in');
    await page.getByLabel('Password').fill(owner.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading(page, 'Jobs');
    expect(new URL(page.url()).pathname).toBe('/jobs');
    // HttpOnly: the session cookie is out of the page's reach.
    expect(await page.evaluate(() => (globalThis as any).document.cookie)).not.toContain('sf_session');
  });

  test('upload a clip with a hostile name, watch it separate live, name shown as text', async () => {
    await page.getByRole('link', { name: 'New job' }).first().click();
    await heading(page, 'New job');
    await axe(page, 'new job');
    // A refused request shows the API's own message and stays on the form.
    await page.getByLabel('Remote address').check();
    await page.getByLabel(/Audio file address/).fill('ftp://example.com/song.mp3');
    await page.getByRole('button', { name: 'Start job' }).click();
    await page.getByRole('alert').filter({ hasText: 'Only http and https URLs are allowed, not "ftp:".' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/new');
    await page.getByLabel('Upload files').check();
    const clip = await readFile(sharedPath('audio', 'musdb-falcon69', 'mixture.wav'));
    await page.getByLabel(/Drop audio files/).setInputFiles({
      name: HOSTILE_NAME,
      mimeType: 'audio/wav',
      buffer: clip,
    });
    await page.getByLabel('Output type').selectOption('FOUR_STEMS');
    await page.getByLabel('Quality').selectOption('FAST');
    await page.getByLabel('Format').selectOption('MP3');
    await shot(page, 'new-job');
    await page.getByRole('button', { name: 'Start job' }).click();
    await page.waitForURL(/\/jobs\/[^/]+$/);
    jobId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);
    // The upload bar reached the end before the job was created.
    await heading(page, SHOWN_NAME);

    // The jobs list follows the job to COMPLETED by itself (polling), without a reload.
    await page.getByRole('link', { name: 'Jobs', exact: true }).click();
    await heading(page, 'Jobs');
    const row = page.locator(`tr[data-job="${jobId}"]`);
    const seen = new Set<string>();
    const deadline = Date.now() + 240_000;
    while (Date.now() < deadline) {
      const status = await row.getAttribute('data-status');
      if (status) seen.add(status);
      if (status === 'COMPLETED' || status === 'FAILED') break;
      await page.waitForTimeout(250);
    }
    expect(await row.getAttribute('data-status')).toBe('COMPLETED');
    expect([...seen].some((x) => x === 'PENDING' || x === 'PROCESSING')).toBe(true);
    // The name as text, and the end of the id to tell jobs of the same name apart.
    await expect(row.getByRole('link').textContent()).resolves.toBe(`${SHOWN_NAME} #${jobId.slice(-6)}`);
    charged = (await findJob(s.rt.db, jobId))!.credits_charged ?? 0;
    expect(charged).toBeGreaterThanOrEqual(6);
    await expect(row.locator('td').nth(4).textContent()).resolves.toBe(String(charged));
    // Filters: the job is listed under its kind and status, not under others.
    await page.getByLabel('Kind').selectOption('denoise');
    await page.getByText('No jobs match these filters').waitFor();
    await page.getByLabel('Kind').selectOption('stem');
    await page.getByLabel('Status').selectOption('COMPLETED');
    await row.waitFor();
    await axe(page, 'jobs');
    await shot(page, 'jobs');
    expect(await page.evaluate(() => (globalThis as any).__xss)).toBeUndefined();
    expect(await page.locator('main img').count()).toBe(0);
  });

  test('a play pressed before the stems are decoded starts at once on media elements, stays aligned over seeks, then moves onto the buffers', async () => {
    // Hold the whole-file downloads the decoder makes (media elements ask for byte ranges), so the
    // stems cannot be decoded: a player that decodes before it plays never starts here.
    const release = await holdWholeFileDownloads(page);
    try {
      await page.goto(`${s.base}/jobs/${encodeURIComponent(jobId)}`);
      await heading(page, SHOWN_NAME);
      const player = page.locator('section.player');
      await page.getByRole('button', { name: 'Play' }).click();
      await player.and(page.locator(':not([data-play-latency-ms=""])')).waitFor({ timeout: 10_000 });
      // From the click to the clock advancing, measured in the page: about 0.15 s on a loaded 2-core
      // machine; 3 s leaves room for a slower one.
      expect(Number(await player.getAttribute('data-play-latency-ms'))).toBeLessThan(3000);
      expect(await player.getAttribute('data-mode')).toBe('media');
      expect(await player.getAttribute('data-ready')).toBe('false');
      const rows = page.locator('li.stem');
      const gains = () => rows.evaluateAll((els) => els.map((e) => Number((e as any).dataset.gain)));
      await page.getByRole('button', { name: 'Mute Bass' }).click();
      expect(await gains()).toEqual([1, 1, 0, 1]);
      await page.getByRole('button', { name: 'Mute Bass' }).click();
      // After each seek every stem's own position (its element's currentTime) stays within 50 ms.
      for (const at of [3, 0.5, 2]) {
        await page.getByLabel('Position', { exact: true }).fill(String(at));
        await page.waitForTimeout(300);
        for (let i = 0; i < 4; i++) {
          await page.waitForTimeout(100);
          const times = await rows.evaluateAll((els) => els.map((e) => Number((e as any).dataset.time)));
          expect(Math.max(...times) - Math.min(...times)).toBeLessThanOrEqual(0.05);
          expect(Math.min(...times)).toBeGreaterThanOrEqual(at);
        }
        expect(Number(await player.getAttribute('data-spread-ms'))).toBeLessThanOrEqual(50);
      }
      expect(await player.getAttribute('data-mode')).toBe('media');
      // Let the downloads go: playback moves onto the decoded buffers, one start for every stem.
      release();
      await player.and(page.locator('[data-mode="buffers"]')).waitFor({ timeout: 30_000 });
      await expect(page.getByRole('button', { name: 'Pause' }).isVisible()).resolves.toBe(true);
      const starts = await rows.evaluateAll((els) => els.map((e) => (e as any).dataset.start));
      expect(starts[0]).toMatch(/^\d+\.\d+@\d+\.\d+$/);
      expect(new Set(starts).size).toBe(1);
      await page.getByRole('button', { name: 'Pause' }).click();
    } finally {
      release();
      await page.unroute(STEM_DOWNLOADS);
    }
  });

  test('the stem player plays the four stems on one clock; mute and solo set the gains; downloads', async () => {
    await page.goto(`${s.base}/jobs/${encodeURIComponent(jobId)}`);
    await heading(page, SHOWN_NAME);
    const player = page.locator('section.player');
    await player.and(page.locator('[data-ready="true"]')).waitFor({ timeout: 30_000 });
    expect(await player.getAttribute('data-mode')).toBe('buffers');
    const rows = page.locator('li.stem');
    expect(await rows.evaluateAll((els) => els.map((e) => (e as any).dataset.stem))).toEqual([
      'vocals',
      'drums',
      'bass',
      'other',
    ]);
    const gains = () => rows.evaluateAll((els) => els.map((e) => Number((e as any).dataset.gain)));
    const starts = () => rows.evaluateAll((els) => els.map((e) => (e as any).dataset.start));
    const position = async () => Number(await page.locator('.clock').getAttribute('data-position'));

    await page.getByRole('button', { name: 'Play' }).click();
    await page.waitForTimeout(1200);
    const p1 = await position();
    expect(p1).toBeGreaterThan(0.3);
    const started = await starts();
    expect(started[0]).toMatch(/@0\.0000$/);
    expect(new Set(started).size).toBe(1);

    // Seek (the Position slider) restarts every stem with the same start time and offset.
    await page.getByLabel('Position', { exact: true }).fill('3');
    await page.waitForTimeout(300);
    const afterSeek = await starts();
    expect(new Set(afterSeek).size).toBe(1);
    expect(afterSeek[0]).toMatch(/@3\.0000$/);
    expect(await position()).toBeGreaterThanOrEqual(3);

    expect(await gains()).toEqual([1, 1, 1, 1]);
    await page.getByRole('button', { name: 'Mute Vocals' }).click();
    expect(await gains()).toEqual([0, 1, 1, 1]);
    await page.getByRole('button', { name: 'Solo Drums' }).click();
    expect(await gains()).toEqual([0, 1, 0, 0]);
    await page.getByRole('button', { name: 'Solo Bass' }).click();
    expect(await gains()).toEqual([0, 1, 1, 0]);
    await page.getByRole('button', { name: 'Solo Drums' }).click();
    await page.getByRole('button', { name: 'Solo Bass' }).click();
    await page.getByLabel('Volume Other').fill('0.5');
    expect(await gains()).toEqual([0, 1, 1, 0.5]);

    // Keyboard: Space on the player pauses; the clock stops.
    await player.focus();
    await page.keyboard.press(' ');
    await expect(page.getByRole('button', { name: 'Play' }).isVisible()).resolves.toBe(true);
    const paused = await position();
    await page.waitForTimeout(400);
    expect(await position()).toBe(paused);
    await axe(page, 'job detail');
    await shot(page, 'job-player');

    const [stem] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download Drums' }).click(),
    ]);
    expect(stem.suggestedFilename()).toMatch(/drums\.mp3$/);
    const stemBytes = await readFile((await stem.path())!);
    expect(stemBytes.length).toBeGreaterThan(10_000);

    // The mix of what is heard (vocals muted, other at half) renders to a WAV of the job's length.
    const [mix] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download export' }).click(),
    ]);
    expect(mix.suggestedFilename()).toMatch(/ - mix without vocals - 100% - 0st\.wav$/);
    const wav = await readFile((await mix.path())!);
    expect(wav.subarray(0, 4).toString()).toBe('RIFF');
    const seconds = wav.readUInt32LE(40) / wav.readUInt32LE(28);
    expect(seconds).toBeGreaterThan(5.5);
    expect(seconds).toBeLessThan(6.5);
  });

  test('overview shows the balance, the ledger with the job, and usage', async () => {
    await page.getByRole('link', { name: 'Overview' }).click();
    await heading(page, 'Overview');
    await page.locator('.ledger-charge').first().waitFor();
    await expect
      .poll(() => page.getByRole('region', { name: 'Balance' }).textContent())
      .toContain(String(600 - charged));
    await expect(page.locator('tbody tr a[href^="/jobs/"]').first().getAttribute('href')).resolves.toBe(
      `/jobs/${encodeURIComponent(jobId)}`,
    );
    await expect
      .poll(() => page.locator('.usage figcaption').textContent())
      .toMatch(new RegExp(`^${charged} seconds charged`));
    await axe(page, 'overview');
    await shot(page, 'overview');
  });

  test('an API key is shown once, works against /v1, and stops working once revoked', async () => {
    await page.getByRole('link', { name: 'API keys' }).click();
    await heading(page, 'API keys');
    await page.getByLabel('Key name').fill('<b>ci</b> key');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = await page.getByRole('textbox', { name: 'Your new API key' }).inputValue();
    await expect(page.getByText('this is the only time it is shown').isVisible()).resolves.toBe(true);
    await page.getByRole('button', { name: 'Copy' }).waitFor();
    expect((await s.api('/v1/jobs', { key: secret })).status).toBe(200);
    await axe(page, 'keys');
    await shot(page, 'keys');
    await page.getByRole('button', { name: 'I have copied it' }).click();
    expect(await page.getByRole('textbox', { name: 'Your new API key' }).count()).toBe(0);
    const row = page.locator('tr', { hasText: '<b>ci</b> key' });
    await row.getByRole('button', { name: 'Revoke <b>ci</b> key' }).click();
    await row.getByText('Revoked').waitFor();
    const refused = await s.api('/v1/jobs', { key: secret });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as any).error.code).toBe('API_KEY_REVOKED');
  });

  test('a webhook disabled after 5 failures is re-enabled from the page', async () => {
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await heading(page, 'Webhooks');
    await page.getByLabel('Webhook address').fill('http://127.0.0.1:9/hook');
    await page.getByRole('button', { name: 'Add webhook' }).click();
    const secret = await page.getByRole('textbox', { name: 'Signing secret of the new webhook' }).inputValue();
    expect(secret.length).toBeGreaterThan(20);
    await page.getByRole('button', { name: 'I have copied it' }).click();
    const item = page.locator('li.webhook');
    const id = (await item.getAttribute('data-webhook'))!;
    // Five failed deliveries, recorded the way the dispatcher records them.
    for (let i = 0; i < 5; i++) await recordDeliveryOutcome(s.rt.db, id, { ok: false, error: 'HTTP 503' });
    await page.reload();
    await item.and(page.locator('[data-active="false"]')).waitFor();
    await expect(item.locator('[data-field="failCount"]').textContent()).resolves.toBe('5');
    await expect(item.locator('[data-field="lastError"]').textContent()).resolves.toBe('HTTP 503');
    await axe(page, 'webhooks');
    await shot(page, 'webhooks');
    await item.getByRole('button', { name: 'Re-enable' }).click();
    await item.and(page.locator('[data-active="true"]')).waitFor();
    await expect(item.locator('[data-field="failCount"]').textContent()).resolves.toBe('0');
    await expect(item.locator('[data-field="lastError"]').textContent()).resolves.toBe('—');
    const row = (await findWebhook(s.rt.db, id))!;
    expect([row.fail_count, Boolean(row.is_active), row.last_error]).toEqual([0, true, null]);
    // A test event to a closed port reports the failure instead of hanging.
    await item.getByRole('button', { name: 'Send test event' }).click();
    await item.getByText(/^Test failed/).waitFor({ timeout: 20_000 });
    await item.getByRole('button', { name: 'Recent deliveries' }).click();
    await item.locator('table').waitFor();
  });

  test('account page, another account cannot see the job, sign out', async () => {
    await page.getByRole('link', { name: 'Account' }).click();
    await heading(page, 'Account');
    await axe(page, 'account');
    await shot(page, 'account');

    const other = await ctx.browser()!.newContext({ viewport: { width: 1100, height: 760 } });
    const p2 = await other.newPage();
    watch(p2);
    await signIn(p2, stranger);
    await p2.goto(`${s.base}/jobs/${encodeURIComponent(jobId)}`);
    await heading(p2, 'Job not found');
    expect(await p2.getByText(SHOWN_NAME).count()).toBe(0);
    await axe(p2, 'not found');
    await p2.goto(`${s.base}/jobs`);
    await p2.getByText('No jobs yet').waitFor();
    await other.close();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading(page, 'Sign in to Stemforge');
    await page.goto(`${s.base}/keys`);
    await heading(page, 'Sign in to Stemforge');
    expect(problems).toEqual([]);
  });
});
