import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { execFileSync } from 'node:child_process';
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
import { GRID, practiceJob } from './helpers/practice-job.ts';
import { createAccount } from '../src/store/accounts.ts';
import { setPasswordHash } from '../src/store/account-passwords.ts';
import { hashPassword } from '../src/accounts/password.ts';
import { findJob } from '../src/store/jobs.ts';
import { sweepExpired } from '../src/worker/retention.ts';

/**
 * Practice mode in Chromium (issue 43): the click with its count-in, a loop dragged on the waveform
 * that snaps to beats or bars, the chord lane, the keyboard shortcuts and their help, settings
 * remembered after a reload, Keep, and exports named after what they hold, on real MP3 stems with
 * a stored beat grid; a job without beats says why its click is off. axe-core on desktop and phone,
 * light and dark.
 */
describe('practice mode (Chromium, real server)', () => {
  let s: TestServer;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  const owner = { email: 'practice@example.com', password: 'practice-password-1', id: '' };
  let jobId = '';
  /** A job analysed before beats existed. */
  let oldJobId = '';
  const problems: string[] = [];
  const player = () => page.locator('section.player');
  const attr = async (name: string) => (await player().getAttribute(name)) ?? '';

  stepsInOrder();

  beforeAll(async () => {
    ensureWebBuilt();
    s = await startTestServer('sqlite', { KEEP_LIMIT_MB: '0.7' });
    owner.id = (await createAccount(s.rt.db, owner.email, 600)).id;
    await setPasswordHash(s.rt.db, owner.id, await hashPassword(owner.password));
    jobId = (await practiceJob(s.rt, owner.id, GRID)).id;
    oldJobId = (await practiceJob(s.rt, owner.id, null)).id;
    browser = await chromium.launch(CHROMIUM);
    ctx = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    page = await ctx.newPage();
    watchPage(page, problems);
    await signInAs(page, s.base, owner);
  });
  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  const open = async (id: string) => {
    await page.goto(`${s.base}/jobs/${encodeURIComponent(id)}`);
    await heading(page, 'song.wav');
    await player().and(page.locator('[data-ready="true"]')).waitFor({ timeout: 30_000 });
    await player().and(page.locator('[data-settings="saved"]')).waitFor();
  };

  test('click and count-in: a bar of clicks, then the stems play and the click follows the beats', async () => {
    await open(jobId);
    await page.getByLabel('Count-in (one bar)').check();
    await page.getByLabel('Click', { exact: true }).check();
    await page.getByRole('button', { name: 'Play' }).click();
    // One bar of count-in in 4/4: four clicks are scheduled before the stems start.
    await expect.poll(() => attr('data-count-in')).toBe('4');
    await expect
      .poll(async () => Number(await page.locator('.clock').getAttribute('data-position')))
      .toBeGreaterThan(0.6);
    // The click goes on over the song's beats.
    await expect.poll(async () => Number(await attr('data-clicks'))).toBeGreaterThan(6);
    await page.getByRole('button', { name: 'Pause' }).click();
    await expectAccessible(page, 'job page with practice controls');
  });

  test('a loop dragged on the waveform snaps to bars, or to beats; the chord lane follows the playhead', async () => {
    const wave = page.locator('li.stem[data-stem="drums"] canvas');
    const box = (await wave.boundingBox())!;
    const x = (seconds: number) => box.x + (seconds / 8) * box.width;
    const y = box.y + box.height / 2;
    const drag = async (from: number, to: number) => {
      await page.mouse.move(x(from), y);
      await page.mouse.down();
      await page.mouse.move(x((from + to) / 2), y, { steps: 4 });
      await page.mouse.move(x(to), y, { steps: 4 });
      await page.mouse.up();
    };
    await page.getByLabel('Loop snaps to').selectOption('bar');
    await drag(1.1, 4.9);
    await expect.poll(() => attr('data-loop')).toBe('on:2.000-4.000');
    await page.getByLabel('Loop snaps to').selectOption('beat');
    await drag(1.1, 4.9);
    await expect.poll(() => attr('data-loop')).toBe('on:1.000-5.000');
    // A click without a drag seeks; the chord lane marks the chord there.
    await page.mouse.click(x(4.5), y);
    await expect.poll(() => page.locator('.chord-lane').getAttribute('data-chord')).toBe('Am');
    await expect(page.locator('.chord.now').textContent()).resolves.toBe('Am');
    expect(await page.locator('.chord-lane .chord').allTextContents()).toEqual(['C', 'G', 'Am', 'F']);
  });

  test('keyboard shortcuts, with their help on ?', async () => {
    await page.locator('h1').click();
    await page.keyboard.press('?');
    const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await help.waitFor();
    await expectAccessible(page, 'shortcut help');
    await page.keyboard.press('Escape');
    await help.waitFor({ state: 'hidden' });
    await page.keyboard.press('c');
    await expect.poll(() => page.getByLabel('Click', { exact: true }).isChecked()).toBe(false);
    await page.keyboard.press('x');
    await expect.poll(() => attr('data-loop')).toMatch(/^off:0\.000-/);
    await page.keyboard.press('+');
    await expect.poll(() => page.locator('.tempo-pitch').getAttribute('data-tempo')).toBe('1.05');
    await page.keyboard.press('2');
    await expect.poll(() => page.getByRole('button', { name: 'Solo Drums' }).getAttribute('aria-pressed')).toBe('true');
    await page.keyboard.press('Shift+Digit1');
    await expect
      .poll(() => page.getByRole('button', { name: 'Mute Vocals' }).getAttribute('aria-pressed'))
      .toBe('true');
    await page.keyboard.press('2');
  });

  test('tempo, mute and loop are remembered on the server: a reload (or another device) shows them', async () => {
    await page.getByLabel('Tempo').fill('75');
    await page.getByLabel('Loop snaps to').selectOption('bar');
    await page.getByRole('button', { name: 'Loop start' }).click();
    await expect.poll(() => attr('data-settings')).toBe('saved');
    await expect.poll(() => attr('data-settings'), { timeout: 5000 }).toBe('saved');
    await page.reload();
    await open(jobId);
    await expect.poll(() => page.locator('.tempo-pitch').getAttribute('data-tempo')).toBe('0.75');
    await expect
      .poll(() => page.getByRole('button', { name: 'Mute Vocals' }).getAttribute('aria-pressed'))
      .toBe('true');
    await expect(page.getByLabel('Loop snaps to').inputValue()).resolves.toBe('bar');
    // Another browser (no shared storage) signed in as the same account sees the same.
    const other = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const p2 = await other.newPage();
    watchPage(p2, problems);
    await signInAs(p2, s.base, owner);
    await p2.goto(`${s.base}/jobs/${encodeURIComponent(jobId)}`);
    await p2.locator('section.player[data-settings="saved"]').waitFor({ timeout: 30_000 });
    await expect.poll(() => p2.locator('.tempo-pitch').getAttribute('data-tempo')).toBe('0.75');
    await other.close();
  });

  test('exports are rendered at the tempo and pitch set, named after what they hold', async () => {
    await page.getByLabel('What to export').selectOption('drums');
    await page.getByLabel('Export format').selectOption('MP3');
    const [stem] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download export' }).click(),
    ]);
    expect(stem.suggestedFilename()).toBe('song - drums - 75% - 0st.mp3');
    const probe = (path: string) =>
      Number(
        execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', path]).toString(),
      );
    // 8 s at 75 %: 10.7 s.
    expect(probe((await stem.path())!)).toBeCloseTo(8 / 0.75, 0);
    await page.getByLabel('What to export').selectOption('mix');
    await page.getByLabel('Export format').selectOption('FLAC');
    const [mix] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download export' }).click(),
    ]);
    // Vocals are muted: the mix says so.
    expect(mix.suggestedFilename()).toBe('song - mix without vocals - 75% - 0st.flac');
    const flac = await readFile((await mix.path())!);
    expect(flac.subarray(0, 4).toString()).toBe('fLaC');
  });

  test('Keep: the job stays past retention within the limit, with the space used; un-keep returns it', async () => {
    await page.getByRole('button', { name: 'Keep', exact: true }).click();
    await page.getByRole('button', { name: 'Kept (un-keep)' }).waitFor();
    await expect(page.locator('.keep-usage').textContent()).resolves.toMatch(/^Kept: 1 job, [\d.]+ KB of 716\.8 KB$/);
    await page.locator('.kept-until').getByText('Kept by you').waitFor();
    // A second job would pass the 1 MB limit: refused with the reason.
    await page.goto(`${s.base}/jobs/${encodeURIComponent(oldJobId)}`);
    await heading(page, 'song.wav');
    await page.getByRole('button', { name: 'Keep', exact: true }).click();
    await page.getByText(/past the 0\.7 MB this server allows/).waitFor();
    // The sweeper passes the kept job by, however late it runs; the other one goes.
    await sweepExpired(s.rt, new Date(Date.now() + 10 * 86_400_000));
    expect((await findJob(s.rt.db, jobId))!.status).toBe('COMPLETED');
    expect((await findJob(s.rt.db, oldJobId))!.status).toBe('EXPIRED');
    await page.goto(`${s.base}/jobs/${encodeURIComponent(jobId)}`);
    await page.getByRole('button', { name: 'Kept (un-keep)' }).click();
    await page.getByRole('button', { name: 'Keep', exact: true }).waitFor();
    const row = (await findJob(s.rt.db, jobId))!;
    expect(row.kept_at).toBeNull();
    expect(Date.parse(row.expires_at!)).toBeGreaterThan(Date.now() + s.rt.config.retentionSeconds * 1000 - 60_000);
  });

  test('a job without beats keeps working; its click and snapping say why they are off', async () => {
    await open((await practiceJob(s.rt, owner.id, null)).id);
    await expect(page.getByLabel('Click', { exact: true }).isDisabled()).resolves.toBe(true);
    await page.getByText('Click, count-in and snapping are off: This job was analysed before beats were').waitFor();
    await page.getByText('No chords: this job was analysed before chords were.').waitFor();
    await page.getByRole('button', { name: 'Play' }).click();
    await expect
      .poll(async () => Number(await page.locator('.clock').getAttribute('data-position')))
      .toBeGreaterThan(0.3);
    await page.getByRole('button', { name: 'Pause' }).click();
  });

  test('axe: the job page on desktop and phone, light and dark; the transport stays in reach on a phone', async () => {
    await onEachScreen(
      browser,
      { base: s.base, who: owner, problems, desktopWidth: 1280 },
      async (p, { name, colorScheme }) => {
        await p.goto(`${s.base}/jobs/${encodeURIComponent(jobId)}`);
        await p.locator('section.player[data-ready="true"]').waitFor({ timeout: 30_000 });
        await expectAccessible(p, `job page (${name}, ${colorScheme})`);
        if (name === 'phone') {
          // Scrolled down to the last stem, Play is still on the screen.
          await p.locator('li.chord-row').scrollIntoViewIfNeeded();
          await p.evaluate(() => (globalThis as any).scrollBy(0, 200));
          const play = (await p.getByRole('button', { name: 'Play' }).boundingBox())!;
          expect(play.y).toBeGreaterThanOrEqual(0);
          expect(play.y + play.height).toBeLessThanOrEqual(844);
          for (const slider of ['Tempo', 'Pitch']) {
            expect((await p.getByRole('slider', { name: slider }).boundingBox())!.width, slider).toBeGreaterThan(200);
          }
        }
      },
    );
    expect(problems).toEqual([]);
  });
});
