import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { startTestServer, type TestServer } from './helpers/server.ts';
import {
  CHROMIUM,
  ensureWebBuilt,
  expectAccessible,
  onEachScreen,
  heading,
  signInAs,
  stepsInOrder,
  watchPage,
} from './helpers/browser.ts';
import { mp3Of } from './helpers/practice-job.ts';
import { commitFinishedJob } from './helpers/finished-job.ts';
import { readStoredZip } from './helpers/zip.ts';
import { grantAsAdmin } from '../src/accounts/admin.ts';
import { createAccount } from '../src/store/accounts.ts';
import { setPasswordHash } from '../src/store/account-passwords.ts';
import { hashPassword } from '../src/accounts/password.ts';

/** A 29.5-second WAV (8 kHz mono: small), as a browser reads a chosen file. */
function wavOf(seconds: number): Buffer {
  return execFileSync('ffmpeg', [
    '-v',
    'error',
    '-f',
    'lavfi',
    '-i',
    'sine=frequency=330:sample_rate=8000',
    '-t',
    String(seconds),
    '-ac',
    '1',
    '-f',
    'wav',
    'pipe:1',
  ]);
}

/**
 * The defects of issue 43's walk, each in Chromium against the real server (no worker runs: the
 * jobs made here wait in the queue): the New-job form's credit, retry, rounding and file checks,
 * queue times that add up, the status line's notification, rename's focus and Escape and the ZIP's
 * names after it, "Instrumental" on one line at 1440 px, links as tall as a finger on a phone; axe
 * on the New-job page on desktop and phone, light and dark.
 */
describe('the walk of issue 43: defects (Chromium, real server)', () => {
  let s: TestServer;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  const owner = { email: 'walk43@example.com', password: 'walk43-password-1', id: '' };
  const problems: string[] = [];
  let completedId = '';
  const files = [
    { name: 'Take one.wav', mimeType: 'audio/wav', buffer: wavOf(29.5) },
    { name: 'Take two.wav', mimeType: 'audio/wav', buffer: wavOf(29.5) },
  ];
  const start = () => page.locator('form button[type="submit"]');

  stepsInOrder();

  beforeAll(async () => {
    ensureWebBuilt();
    s = await startTestServer('sqlite');
    owner.id = (await createAccount(s.rt.db, owner.email, 50)).id;
    await setPasswordHash(s.rt.db, owner.id, await hashPassword(owner.password));
    browser = await chromium.launch(CHROMIUM);
    ctx = await browser.newContext({ viewport: { width: 1440, height: 900 }, acceptDownloads: true });
    await ctx.grantPermissions(['notifications']);
    page = await ctx.newPage();
    watchPage(page, problems);
    await signInAs(page, s.base, owner);
  });
  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  const choose = async (list: typeof files) => {
    await page.goto(`${s.base}/new`);
    await heading(page, 'New job');
    await page.getByLabel('Output type').locator('option').first().waitFor({ state: 'attached' });
    await page.getByLabel(/Drop audio files/).setInputFiles(list);
  };

  test('random bytes named .mp3 are flagged before upload; two 29.5 s files are 1:00 and 60 credits, said one way', async () => {
    await choose([{ name: 'noise.mp3', mimeType: 'audio/mpeg', buffer: randomBytes(300_000) }, ...files]);
    await page
      .locator('.chosen li.refused')
      .getByText(/not audio this browser can read/)
      .waitFor();
    await expect
      .poll(() => page.locator('.cost').textContent())
      .toMatch(/^Estimated cost: 60 credits for 1:00 of audio in 2 files\./);
    expect(await page.locator('.chosen li:not(.refused) .muted').allTextContents()).toEqual([
      expect.stringMatching(/, 30 s$/),
      expect.stringMatching(/, 30 s$/),
    ]);
  });

  test('with too little credit for the batch, Start is off and says why', async () => {
    await expect(start().isDisabled()).resolves.toBe(true);
    await page.locator('#start-why').getByText('the balance does not cover these files').waitFor();
    await expectAccessible(page, 'new job, not covered');
  });

  test('a refused file is retried as such; other options start new jobs for every file, said on the button', async () => {
    await grantAsAdmin(s.rt.db, owner.id, 20, 'enough for two');
    await choose(files);
    await expect.poll(() => start().textContent()).toBe('Start 2 jobs');
    // Credit spent elsewhere meanwhile: the server refuses the second job (a real 402).
    await grantAsAdmin(s.rt.db, owner.id, -40, 'spent elsewhere');
    await start().click();
    await page.locator('.batch-list li[data-file="Take two.wav"] .error').waitFor();
    await expect.poll(() => start().textContent()).toBe('Retry the refused file');
    await page.getByLabel('Output type').selectOption('FOUR_STEMS');
    await expect.poll(() => start().textContent()).toBe('Start 2 jobs');
    await grantAsAdmin(s.rt.db, owner.id, 100, 'more');
    await page.reload();
    await choose(files);
    await page.getByLabel('Output type').selectOption('FOUR_STEMS');
    await start().click();
    await expect.poll(() => page.locator('.batch-list li a').count()).toBe(2);
  });

  test('queued jobs: positions and times add up (one behind another says more time left)', async () => {
    const res: any = await page.evaluate(async () => (await fetch('/dashboard/api/jobs?limit=10')).json());
    const queued = (res.jobs as { status: string; queuePosition: number; secondsLeft: number; createdAt: string }[])
      .filter((j) => j.status === 'PENDING')
      .sort((a, b) => a.queuePosition - b.queuePosition);
    expect(queued.map((j) => j.queuePosition)).toEqual([1, 2, 3]);
    for (let i = 1; i < queued.length; i++) expect(queued[i]!.secondsLeft).toBeGreaterThan(queued[i - 1]!.secondsLeft);
    // The job page: "about … left" and the notification line are apart, not run together.
    await page.locator('.batch-list li a').last().click();
    const eta = (await page.locator('.job-status .eta').boundingBox())!;
    const note = (await page.locator('.job-status').getByText('You will be notified').boundingBox())!;
    expect(note.x >= eta.x + eta.width + 4 || note.y >= eta.y + eta.height).toBe(true);
  });

  test('Rename focuses the field and Escape cancels; after a rename the ZIP and the files are named after it', async () => {
    const { job } = await commitFinishedJob(s.rt, owner.id, {
      outcome: 'COMPLETED',
      outputs: { vocals: mp3Of('sine=frequency=440', 6), instrumental: mp3Of('sine=frequency=220', 6) },
      options: { outputType: 'BOTH', quality: 'FAST', outputFormat: 'MP3', denoiseVocals: false },
    });
    completedId = job.id;
    await page.goto(`${s.base}/jobs/${job.id}`);
    await heading(page, 'song.wav');
    // "Instrumental" on one line at 1440 px.
    const name = page.locator('li.stem[data-stem="instrumental"] .stem-name');
    await name.waitFor();
    const lineHeight = await name.evaluate((e) =>
      Number.parseFloat((globalThis as any).getComputedStyle(e).lineHeight),
    );
    expect((await name.boundingBox())!.height).toBeLessThan(lineHeight * 1.5);
    await page.getByRole('button', { name: 'Rename' }).click();
    await expect
      .poll(() => page.evaluate(() => (globalThis as any).document.activeElement?.getAttribute('type')))
      .toBe('text');
    await page.keyboard.type('Not this');
    await page.keyboard.press('Escape');
    await expect(page.getByLabel('New name').count()).resolves.toBe(0);
    await expect
      .poll(() => page.evaluate(() => (globalThis as any).document.activeElement?.textContent))
      .toBe('Rename');
    await heading(page, 'song.wav');
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByLabel('New name').fill('Live take');
    await page.keyboard.press('Enter');
    await heading(page, 'Live take');
    await page.getByRole('link', { name: 'Live take-vocals.mp3' }).waitFor();
    const [zip] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download all (ZIP)' }).click(),
    ]);
    expect(zip.suggestedFilename()).toBe('Live take.zip');
    expect([...readStoredZip(await readFile((await zip.path())!)).keys()].sort()).toEqual([
      'Live take-instrumental.mp3',
      'Live take-vocals.mp3',
    ]);
  });

  test('phone: job and file links are 44 px tall; axe on the New-job page, desktop and phone, light and dark', async () => {
    await onEachScreen(
      browser,
      { base: s.base, who: owner, problems, desktopWidth: 1440 },
      async (p, { name, colorScheme }) => {
        await p.goto(`${s.base}/new`);
        await p.getByLabel('Output type').locator('option').first().waitFor({ state: 'attached' });
        await p.getByLabel(/Drop audio files/).setInputFiles(files);
        await p.locator('.cost').waitFor();
        await expectAccessible(p, `new job (${name}, ${colorScheme})`);
        if (name === 'phone' && colorScheme === 'light') {
          await p.goto(`${s.base}/jobs`);
          await p.locator('tbody tr[data-job] a').first().waitFor();
          for (const h of await p
            .locator('tbody tr[data-job] td a')
            .evaluateAll((as) => as.map((a) => a.getBoundingClientRect().height)))
            expect(h).toBeGreaterThanOrEqual(44);
          await p.goto(`${s.base}/jobs/${completedId}`);
          await p.locator('.files a').first().waitFor();
          for (const h of await p
            .locator('.files a')
            .evaluateAll((as) => as.map((a) => a.getBoundingClientRect().height)))
            expect(h).toBeGreaterThanOrEqual(44);
        }
      },
    );
    expect(problems).toEqual([]);
  });
});
