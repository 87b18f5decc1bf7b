import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { existsSync, mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { startTestServer, type TestServer } from './helpers/server.ts';
import {
  CHROMIUM,
  PHONE,
  ensureWebBuilt,
  expectAccessible,
  heading,
  signInAs,
  stepsInOrder,
  watchPage,
} from './helpers/browser.ts';
import { readStoredZip } from './helpers/zip.ts';
import { sharedPath } from '../support/shared.ts';
import { startWorkers, type Workers } from '../src/worker/start.ts';
import { createAccount } from '../src/store/accounts.ts';
import { setPasswordHash } from '../src/store/account-passwords.ts';
import { hashPassword } from '../src/accounts/password.ts';
import { findJob } from '../src/store/jobs.ts';
import { getBalanceSeconds } from '../src/store/credits.ts';
import { readOutputs } from '../src/jobs/read-job.ts';
import { PHASE_WORDS } from '../web/src/words.ts';

/** `SCREENSHOT_DIR=/some/dir` keeps a screenshot of each page, desktop and phone, light and dark. */
const shots = process.env.SCREENSHOT_DIR;
const RUNNING_WORDS = Object.entries(PHASE_WORDS)
  .filter(([phase]) => !['completed', 'failed', 'cancelled', 'expired'].includes(phase))
  .map(([, words]) => words);

/**
 * The walk of issue 32 on a fresh server with real jobs (HTDemucs, FAST, a 6-second clip), in
 * Chromium: the honest New-job form, a batch of three files, phases in words, cancel of a queued
 * and of a running job, the key's confidence, the ZIP, tempo and pitch, rename, search and delete,
 * notifications, the phone layout, keyboard focus, dark mode; axe-core and no page error throughout.
 */
describe('dashboard walk (Chromium, real jobs)', () => {
  let s: TestServer;
  let workers: Workers;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  const owner = { email: 'walker@example.com', password: 'walker-password-1', id: '' };
  const ids: Record<string, string> = {};
  const problems: string[] = [];

  const watch = (p: Page) => watchPage(p, problems);
  const axe = expectAccessible;
  const shot = async (p: Page, name: string) => {
    if (!shots) return;
    mkdirSync(shots, { recursive: true });
    await p.screenshot({ path: resolve(shots, `${name}.png`), fullPage: true });
  };
  const signIn = (p: Page) => signInAs(p, s.base, owner);
  const status = async (id: string) => (await findJob(s.rt.db, id))!;
  const until = async (what: string, check: () => Promise<boolean>, ms = 240_000) => {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      if (await check()) return;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`timed out waiting for ${what}`);
  };

  stepsInOrder();

  beforeAll(async () => {
    ensureWebBuilt();
    // The shared models hold the voice cleaner but not the six-stem model.
    s = await startTestServer('sqlite', { STEMFORGE_MODELS_DIR: sharedPath('models'), WORKER_CONCURRENCY: '1' });
    workers = await startWorkers(s.rt);
    owner.id = (await createAccount(s.rt.db, owner.email, 600)).id;
    await setPasswordHash(s.rt.db, owner.id, await hashPassword(owner.password));
    browser = await chromium.launch(CHROMIUM);
    ctx = await browser.newContext({ viewport: { width: 1100, height: 800 }, acceptDownloads: true });
    await ctx.grantPermissions(['notifications']);
    // Records the notifications the page raises (evaluated over DevTools: the page's CSP still holds).
    await ctx.addInitScript(() => {
      const Real = (globalThis as any).Notification;
      (globalThis as any).__notes = [];
      (globalThis as any).Notification = class extends Real {
        constructor(title: string, options?: object) {
          (globalThis as any).__notes.push(title);
          super(title, options);
        }
      };
    });
    page = await ctx.newPage();
    watch(page);
  });
  afterAll(async () => {
    await browser?.close();
    await workers?.stop();
    await s?.close();
  });

  test('the New-job form offers what the server can do, says the cost before Start, and makes one job per file', async () => {
    await signIn(page);
    await page.getByRole('link', { name: 'New job' }).first().click();
    await heading(page, 'New job');
    const types = page.getByLabel('Output type');
    await types.locator('option').first().waitFor({ state: 'attached' });
    const offered = await types.locator('option').evaluateAll((os) => os.map((o) => (o as any).value));
    expect(offered).toEqual(['VOCALS', 'INSTRUMENTAL', 'BOTH', 'FOUR_STEMS']);
    await expect(page.locator('.not-offered').textContent()).resolves.toContain('needs the htdemucs_6s model');
    const input = page.getByLabel(/Drop audio files/);
    expect(await input.getAttribute('multiple')).not.toBeNull();
    const clip = await readFile(sharedPath('audio', 'musdb-falcon69', 'mixture.wav'));
    await input.setInputFiles(
      ['Verse.wav', 'Chorus.wav', 'Bridge.wav'].map((name) => ({ name, mimeType: 'audio/wav', buffer: clip })),
    );
    // The clip lasts a little over 6 s: 7 credits each, as the server bills (whole seconds, rounded up);
    // the length shown is the billed one (one rounding rule, issue 43).
    const cost = page.locator('.cost');
    // The estimate follows once the page has measured the files: wait for it, not for the first text.
    await expect
      .poll(() => cost.textContent())
      .toMatch(/^Estimated cost: 21 credits for 0:21 of audio in 3 files\. Your balance after: 579 of 600 credits\./);
    await types.selectOption('FOUR_STEMS');
    await page.getByLabel('Quality').selectOption('FAST');
    await axe(page, 'new job');
    await shot(page, 'new-job-desktop');
    await page.getByRole('button', { name: 'Start 3 jobs' }).click();

    const rows = page.locator('.batch-list li');
    await until('three jobs', async () => (await rows.locator('a').count()) === 3, 60_000);
    for (const name of ['Verse.wav', 'Chorus.wav', 'Bridge.wav']) {
      ids[name] = (await page.locator(`.batch-list li[data-file="${name}"]`).getAttribute('data-job'))!;
      expect((await status(ids[name]!)).status).toMatch(/PENDING|PROCESSING|COMPLETED/);
    }
    // Each file was uploaded once.
    const uploads = await s.rt.db
      .selectFrom('uploads')
      .select('file_name')
      .where('account_id', '=', owner.id)
      .execute();
    expect(uploads.map((u) => u.file_name).sort()).toEqual(['Bridge.wav', 'Chorus.wav', 'Verse.wav']);
    // The first runs (in words), the others wait their turn.
    await until('a phase in words', async () => {
      const text =
        (await page
          .locator('.batch-list li[data-file="Verse.wav"] .phase')
          .textContent()
          .catch(() => '')) ?? '';
      return RUNNING_WORDS.includes(text) && text !== PHASE_WORDS.queued;
    });
    await expect
      .poll(() => page.locator('.batch-list li[data-file="Bridge.wav"] .queue').textContent())
      .toMatch(/in the queue$/);
    await shot(page, 'batch-progress-desktop');
  });

  test('Cancel stops a queued job and a running one; their credits come back; a notification says when one ends', async () => {
    await page.getByRole('link', { name: 'Jobs', exact: true }).click();
    await heading(page, 'Jobs');
    const bridge = page.locator(`tr[data-job="${ids['Bridge.wav']}"]`);
    await expect(bridge.locator('td').nth(4).textContent()).resolves.toBe('7 held');
    await bridge.getByRole('button', { name: 'Cancel Bridge.wav' }).click();
    await bridge.getByText('Cancelled', { exact: true }).waitFor();
    expect((await status(ids['Bridge.wav']!)).error_code).toBe('JOB_CANCELLED');

    // Verse completes; the page watching it tells of it.
    await until('Verse completed', async () => (await status(ids['Verse.wav']!)).status === 'COMPLETED');
    await page.locator(`tr[data-job="${ids['Verse.wav']}"][data-status="COMPLETED"]`).waitFor({ timeout: 10_000 });
    await until('a notification', async () =>
      (await page.evaluate(() => (globalThis as any).__notes as string[])).includes('Verse.wav is ready'),
    );

    // Chorus runs next: cancelled from its page while it separates, the worker stops and stores nothing.
    await until('Chorus running', async () => (await status(ids['Chorus.wav']!)).status === 'PROCESSING', 60_000);
    await page.goto(`${s.base}/jobs/${ids['Chorus.wav']}`);
    await heading(page, 'Chorus.wav');
    await page.getByRole('button', { name: 'Cancel job' }).click();
    await page.locator('.job-status').getByText('Cancelled', { exact: true }).waitFor();
    await page.getByText('You cancelled this job; its credits were released.').waitFor();
    await shot(page, 'cancelled-desktop');
    await new Promise((r) => setTimeout(r, 3000));
    const chorus = await status(ids['Chorus.wav']!);
    expect([chorus.status, chorus.progress_phase, chorus.outputs_json]).toEqual(['FAILED', 'cancelled', null]);
    expect(existsSync(resolve(s.dataDir, 'blobs', 'jobs', chorus.id))).toBe(false);
    const verse = await status(ids['Verse.wav']!);
    expect(await getBalanceSeconds(s.rt.db, owner.id)).toBe(600 - verse.credits_charged!);
  });

  test('the job page: key and tempo with their confidence, Download all (ZIP) with every stem, outputs kept until', async () => {
    const id = ids['Verse.wav']!;
    await page.goto(`${s.base}/jobs`);
    await expect(page.locator(`tr[data-job="${id}"] td`).nth(5).textContent()).resolves.toMatch(/% sure/);
    await page.goto(`${s.base}/jobs/${id}`);
    await heading(page, 'Verse.wav');
    await expect(page.locator('.bpm-key').textContent()).resolves.toMatch(
      /^\d+ BPM \(\d+ % sure\) · [A-G].* \(\d+ % sure\)$/,
    );
    await page.getByText(/^Kept until .*, then deleted\.$/).waitFor();
    const [zip] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download all (ZIP)' }).click(),
    ]);
    expect(zip.suggestedFilename()).toBe('Verse.zip');
    const entries = readStoredZip(await readFile((await zip.path())!));
    const stored = readOutputs(await status(id))!;
    expect([...entries.keys()].sort()).toEqual(
      Object.values(stored)
        .map((o) => o.fileName)
        .sort(),
    );
    expect(entries.size).toBe(4);
    for (const o of Object.values(stored)) {
      expect(entries.get(o.fileName)!.length).toBe((await s.rt.blobs.stat(o.key))!.size);
    }
  });

  test('Tempo slows every stem together, Pitch transposes; mute and solo work beside them', async () => {
    const player = page.locator('section.player');
    await player.and(page.locator('[data-ready="true"]')).waitFor({ timeout: 30_000 });
    const position = async () => Number(await page.locator('.clock').getAttribute('data-position'));
    const pace = async () => {
      const a = await position();
      const t = Date.now();
      await page.waitForTimeout(1500);
      return ((await position()) - a) / ((Date.now() - t) / 1000);
    };
    await page.getByRole('button', { name: 'Play' }).click();
    await page.waitForTimeout(300);
    const normal = await pace();
    await page.getByLabel('Tempo').fill('50');
    await page.locator('.tempo-pitch[data-stretch="on"]').waitFor({ timeout: 15_000 });
    const rates = await page.locator('li.stem').evaluateAll((els) => els.map((e) => Number((e as any).dataset.rate)));
    expect(rates).toEqual([0.5, 0.5, 0.5, 0.5]);
    // The stems' own sources run at half the rate: the clock follows them.
    const slow = await pace();
    expect(slow / normal).toBeGreaterThan(0.35);
    expect(slow / normal).toBeLessThan(0.65);
    await page.getByLabel('Pitch').fill('2');
    await page.locator('.tempo-pitch[data-pitch="2"]').waitFor();
    await page.locator('.export').getByText('at 50 % and 2 semitones').waitFor();
    await page.getByRole('button', { name: 'Mute Vocals' }).click();
    await page.getByRole('button', { name: 'Pause' }).click();
    const [mix] = await Promise.all([
      page.waitForEvent('download', { timeout: 60_000 }),
      page.getByRole('link', { name: 'Download export' }).click(),
    ]);
    expect(mix.suggestedFilename()).toBe('Verse - mix without vocals - 50% - +2st.wav');
    const wav = await readFile((await mix.path())!);
    // Half the tempo: twice the clip's length.
    const seconds = wav.readUInt32LE(40) / wav.readUInt32LE(28);
    expect(seconds).toBeGreaterThan(11);
    expect(seconds).toBeLessThan(13);
    const samples = new Int16Array(wav.buffer, wav.byteOffset + 44, (wav.length - 44) / 2);
    // Not silence: the stretched drums, bass and other are there.
    expect(samples.subarray(44_100, 44_100 * 8).reduce((m, v) => Math.max(m, Math.abs(v)), 0)).toBeGreaterThan(1000);
    await axe(page, 'job page');
    await shot(page, 'job-page-desktop');
  });

  test('rename shows in the list and search finds it; delete asks, then removes the job and its files', async () => {
    const id = ids['Verse.wav']!;
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByLabel('New name').fill('Verse practice take');
    await page.getByRole('button', { name: 'Save name' }).click();
    await heading(page, 'Verse practice take');
    await page.getByRole('link', { name: 'Jobs', exact: true }).click();
    await heading(page, 'Jobs');
    await page.getByLabel('Search').fill('practice');
    await page.waitForURL(/q=practice/);
    // The URL changes first; the rows shown until the search's answer arrives are the unfiltered list's.
    await expect
      .poll(() => page.locator('tbody tr[data-job]').evaluateAll((rs) => rs.map((r) => (r as any).dataset.job)), {
        timeout: 15_000,
      })
      .toEqual([id]);
    await axe(page, 'jobs');
    await shot(page, 'jobs-desktop');

    const bridge = ids['Bridge.wav']!;
    await page.goto(`${s.base}/jobs/${bridge}`);
    await heading(page, 'Bridge.wav');
    await page.getByRole('button', { name: 'Delete' }).click();
    await heading(page, 'Jobs');
    expect(await findJob(s.rt.db, bridge)).toBeNull();
    expect(await page.locator(`tr[data-job="${bridge}"]`).count()).toBe(0);
  });

  test('keyboard: after a page change Tab reaches the skip link, then the navigation', async () => {
    await page.getByRole('link', { name: 'Overview' }).click();
    await heading(page, 'Overview');
    // The page moves focus to its top after it renders: wait for that, not only for the heading.
    await page.waitForFunction(() => (globalThis as any).document.activeElement?.id === 'page-top');
    await page.keyboard.press('Tab');
    await expect(page.evaluate(() => (globalThis as any).document.activeElement.textContent)).resolves.toBe(
      'Skip to content',
    );
    await page.keyboard.press('Tab');
    await expect(page.evaluate(() => (globalThis as any).document.activeElement.textContent)).resolves.toBe(
      'Stemforge',
    );
  });

  test('phone (390 x 844): compact header, a Menu, 44 px mute and solo, no control off-screen', async () => {
    const phone = await browser.newContext({ ...PHONE, acceptDownloads: true });
    const p = await phone.newPage();
    watch(p);
    await signIn(p);
    const header = (await p.locator('header.top').boundingBox())!;
    expect(header.height).toBeLessThanOrEqual(64);
    expect(await p.getByRole('link', { name: 'API keys' }).isVisible()).toBe(false);
    await p.getByRole('button', { name: 'Menu' }).click();
    await p.getByRole('link', { name: 'API keys' }).click();
    await heading(p, 'API keys');
    await p.getByLabel('Key name').fill('phone key');
    await p.getByRole('button', { name: 'Create key' }).click();
    await p.getByRole('button', { name: 'I have copied it' }).click();
    const revoke = (await p.getByRole('button', { name: 'Revoke phone key' }).boundingBox())!;
    expect(revoke.x + revoke.width).toBeLessThanOrEqual(390);
    await shot(p, 'keys-phone');

    await p.goto(`${s.base}/jobs/${ids['Verse.wav']}`);
    await heading(p, 'Verse practice take');
    await p.locator('section.player[data-ready="true"]').waitFor({ timeout: 30_000 });
    for (const name of ['Mute Drums', 'Solo Drums', 'Volume Drums', 'Tempo', 'Pitch']) {
      const box = (await p
        .getByRole(name.startsWith('Volume') || name === 'Tempo' || name === 'Pitch' ? 'slider' : 'button', { name })
        .boundingBox())!;
      expect(box.height, name).toBeGreaterThanOrEqual(44);
      if (!name.startsWith('Volume') && name !== 'Tempo' && name !== 'Pitch')
        expect(box.width, name).toBeGreaterThanOrEqual(44);
    }
    const offscreen = await p.evaluate(() =>
      [...(globalThis as any).document.querySelectorAll('main button, main a, main input, main select')]
        .map((e: any) => ({ e, r: e.getBoundingClientRect() }))
        .filter(({ r }: any) => r.width > 0 && (r.left < 0 || r.right > 390))
        .map(({ e }: any) => e.getAttribute('aria-label') ?? e.textContent),
    );
    expect(offscreen).toEqual([]);
    await axe(p, 'job page (phone)');
    await shot(p, 'job-page-phone');
    await phone.close();
  });

  test('dark mode follows the system: a dark page that still passes axe, on a phone too', async () => {
    for (const [name, options] of [
      ['desktop', { viewport: { width: 1100, height: 800 } }],
      ['phone', PHONE],
    ] as const) {
      const dark = await browser.newContext({ ...options, colorScheme: 'dark' });
      const p = await dark.newPage();
      watch(p);
      await signIn(p);
      const background = await p.evaluate(
        () => (globalThis as any).getComputedStyle((globalThis as any).document.body).backgroundColor as string,
      );
      const [r, g, b] = background.match(/\d+/g)!.map(Number);
      expect(r! + g! + b!).toBeLessThan(3 * 60);
      await axe(p, `overview (dark, ${name})`);
      await shot(p, `overview-dark-${name}`);
      await p.goto(`${s.base}/jobs`);
      await p.locator('tbody tr[data-job]').first().waitFor();
      await axe(p, `jobs (dark, ${name})`);
      await shot(p, `jobs-dark-${name}`);
      await p.goto(`${s.base}/jobs/${ids['Verse.wav']}`);
      await p.locator('section.player[data-ready="true"]').waitFor({ timeout: 30_000 });
      await axe(p, `job page (dark, ${name})`);
      await shot(p, `job-page-dark-${name}`);
      await p.goto(`${s.base}/new`);
      await p.getByLabel('Output type').locator('option').first().waitFor({ state: 'attached' });
      await axe(p, `new job (dark, ${name})`);
      await shot(p, `new-job-dark-${name}`);
      await dark.close();
    }
    expect(problems).toEqual([]);
  });
});
