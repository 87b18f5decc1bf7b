/**
 * The dashboard's stem player on a 4-minute FOUR_STEMS job (4 MP3 stems, 44.1 kHz stereo, 192 kb/s)
 * in headless Chromium against the real server on loopback. The bar: playing starts within
 * 2 s of pressing play, and the stems stay within 50 ms of each other after seeks. Per round:
 * 1. a freshly opened job page, play pressed as soon as the button takes it (the stems are still
 *    being fetched and decoded): press -> clock advancing, measured in the page from the click
 *    handler (`data-play-latency-ms`), and open -> clock advancing from outside;
 * 2. the same with the decoding held back (the page's whole-file stem downloads are delayed), so
 *    the stems surely play through media elements: 5 seeks, then each stem's own position
 *    (`data-time`, its element's currentTime) sampled 8 times over 0.8 s after each, and the
 *    player's own watch (`data-spread-ms`) and re-alignments (`data-resyncs`); then the downloads
 *    are let go and the player hands over to the decoded buffers: 5 more seeks, where every stem's
 *    source start time and offset must be equal;
 * 3. open, wait until decoded (open -> decoded), press play -> clock advancing;
 * 4. peer, alternating order: fetching + decoding the four stems all at once vs one after another.
 * Prints figures (medians over the rounds); asserts nothing.
 *   node bin/run-ts.mjs bench/dashboard-player.ts [rounds=3]
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { startTestServer } from '../test/helpers/server.ts';
import { sharedPath } from '../support/shared.ts';
import { holdWholeFileDownloads, STEM_DOWNLOADS } from '../support/hold-downloads.ts';
import { commitFinishedJob } from '../test/helpers/finished-job.ts';
import { createAccount } from '../src/store/accounts.ts';
import { setPasswordHash } from '../src/store/account-passwords.ts';
import { hashPassword } from '../src/accounts/password.ts';

const rounds = Number(process.argv[2] ?? 3);
const root = resolve(import.meta.dirname, '..');
if (!existsSync(join(root, 'web/dist/index.html'))) {
  execFileSync(process.execPath, [join(root, 'web/build.mjs'), '--no-check'], { stdio: 'inherit' });
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

// Four different 240 s stems from one CC track (looped), each band-filtered so they differ.
const work = mkdtempSync(join(tmpdir(), 'sf-player-bench-'));
const song = sharedPath('audio', 'music', 'Karissa_Hobbs_-_Lets_Go_Fishin.hq.ogg');
const filters: Record<string, string> = {
  vocals: 'bandpass=f=1500:width_type=o:w=2',
  drums: 'highpass=f=3000',
  bass: 'lowpass=f=200',
  other: 'volume=0.8',
};
const outputs: Record<string, Buffer> = {};
for (const [stem, af] of Object.entries(filters)) {
  const file = join(work, `${stem}.mp3`);
  execFileSync('ffmpeg', [
    ...['-loglevel', 'error', '-stream_loop', '2', '-i', song, '-t', '240', '-af', af],
    ...['-ar', '44100', '-ac', '2', '-c:a', 'libmp3lame', '-b:a', '192k', file],
  ]);
  outputs[stem] = readFileSync(file);
}

const s = await startTestServer('sqlite');
const account = await createAccount(s.rt.db, 'bench@example.com', 3600);
await setPasswordHash(s.rt.db, account.id, await hashPassword('bench-password-1'));
const { job } = await commitFinishedJob(s.rt, account.id, {
  outcome: 'COMPLETED',
  outputs,
  input: { fileName: 'four-minutes.mp3', durationSeconds: 240, fileSizeBytes: 5_760_000 },
  options: { outputType: 'FOUR_STEMS', quality: 'FAST', outputFormat: 'MP3', denoiseVocals: false },
});
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
});
try {
  const page = await browser.newPage();
  await page.goto(`${s.base}/sign-in`);
  await page.getByLabel('Email').fill('bench@example.com');
  await page.getByLabel('Password').fill('bench-password-1');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  const jobUrl = `${s.base}/jobs/${job.id}`;
  // Warm the server's peaks cache (computed once per output) so it is not counted below.
  await page.goto(jobUrl);
  await page.locator('section.player[data-ready="true"]').waitFor({ timeout: 120_000 });

  const ready: number[] = [];
  const latency: number[] = [];
  const pressToSound: number[] = [];
  const openToSound: number[] = [];
  const modeAtSound: string[] = [];
  const parallel: number[] = [];
  const sequential: number[] = [];
  const mediaSpread: number[] = [];
  const watchSpread: number[] = [];
  let resyncs = 0;
  let bufferSpread = 0;
  const player = page.locator('section.player');
  const attr = async (name: string) => (await player.getAttribute(name)) ?? '';
  const advancing = () =>
    page.waitForFunction(
      () => Number((globalThis as any).document.querySelector('.clock')?.getAttribute('data-position')) > 0,
      null,
      { timeout: 120_000, polling: 10 },
    );
  const stemTimes = (): Promise<number[]> =>
    page.locator('li.stem').evaluateAll((els) => els.map((e) => Number((e as any).dataset.time)));
  const seekTo = (at: number) => page.getByLabel('Position', { exact: true }).fill(String(at));
  const seeks = [200, 30, 120.5, 5, 233];
  const urls: string[] = await page.locator('li.stem a[download]').evaluateAll((as) => as.map((a) => (a as any).href));
  for (let r = 0; r < rounds; r++) {
    // 1. open and press play at once, while the stems are fetched and decoded.
    const t0 = Date.now();
    await page.goto(jobUrl);
    await page.getByRole('button', { name: 'Play' }).click();
    await advancing();
    openToSound.push(Date.now() - t0);
    modeAtSound.push(await attr('data-mode'));
    await player.and(page.locator(':not([data-play-latency-ms=""])')).waitFor();
    pressToSound.push(Number(await attr('data-play-latency-ms')));

    // 2. the same with the whole-file downloads (the decoder's; media elements ask for ranges) held.
    const release = await holdWholeFileDownloads(page);
    await page.goto(jobUrl);
    await page.getByRole('button', { name: 'Play' }).click();
    await advancing();
    for (const at of seeks) {
      await seekTo(at);
      await page.waitForTimeout(200);
      let worst = 0;
      for (let i = 0; i < 8; i++) {
        await page.waitForTimeout(100);
        const times = await stemTimes();
        worst = Math.max(worst, (Math.max(...times) - Math.min(...times)) * 1000);
      }
      if ((await attr('data-mode')) !== 'media') throw new Error('the stems were decoded while held back');
      mediaSpread.push(worst);
      watchSpread.push(Number(await attr('data-spread-ms')));
    }
    resyncs += Number(await attr('data-resyncs'));
    release();
    await player.and(page.locator('[data-mode="buffers"]')).waitFor({ timeout: 120_000 });
    await page.unroute(STEM_DOWNLOADS);
    for (const at of seeks) {
      await seekTo(at);
      await page.waitForTimeout(100);
      const starts: string[] = await page
        .locator('li.stem')
        .evaluateAll((els) => els.map((e) => (e as any).dataset.start ?? ''));
      const whens = starts.map((x) => Number(x.split('@')[0]));
      const offsets = starts.map((x) => Number(x.split('@')[1]));
      bufferSpread = Math.max(
        bufferSpread,
        (Math.max(...whens) - Math.min(...whens)) * 1000,
        (Math.max(...offsets) - Math.min(...offsets)) * 1000,
      );
    }

    // 3. open, wait until decoded, press play.
    await page.goto(jobUrl);
    await page.locator('section.player[data-ready="true"]').waitFor({ timeout: 120_000 });
    ready.push(Number(await attr('data-load-ms')));
    await page.getByRole('button', { name: 'Play' }).click();
    await player.and(page.locator(':not([data-play-latency-ms=""])')).waitFor();
    latency.push(Number(await attr('data-play-latency-ms')));

    // 4. decoding peer, alternating order: all four at once vs one after another.
    const decode = (mode: 'parallel' | 'sequential') =>
      page.evaluate(
        async ({ urls, mode }) => {
          const ctx = new (globalThis as any).AudioContext();
          const t = performance.now();
          // No named inner functions: tsx's keepNames would reference a helper the page lacks.
          if (mode === 'parallel') {
            await Promise.all(urls.map(async (u) => ctx.decodeAudioData(await (await fetch(u)).arrayBuffer())));
          } else {
            for (const u of urls) await ctx.decodeAudioData(await (await fetch(u)).arrayBuffer());
          }
          const ms = performance.now() - t;
          await ctx.close();
          return ms;
        },
        { urls, mode },
      );
    const order = r % 2 === 0 ? (['parallel', 'sequential'] as const) : (['sequential', 'parallel'] as const);
    for (const mode of order) (mode === 'parallel' ? parallel : sequential).push(await decode(mode));
  }
  const list = (xs: number[]) => `[${xs.map(Math.round).join(', ')}]`;
  console.log(`CPU: ${cpus()[0]?.model} x${cpus().length} (shared with other engineers' work: figures are noisy)`);
  console.log(
    `4-minute FOUR_STEMS job, 4 x ${(outputs.vocals!.length / 1e6).toFixed(1)} MB MP3, ${rounds} rounds, medians:`,
  );
  console.log(
    `  fresh page, play pressed at once: press -> clock advancing  ${median(pressToSound)} ms   ${list(pressToSound)} (playing through: ${modeAtSound.join(', ')})`,
  );
  console.log(
    `  fresh page, play pressed at once: open -> clock advancing   ${median(openToSound)} ms   ${list(openToSound)}`,
  );
  console.log(
    `  media elements, 8 samples after each of ${mediaSpread.length} seeks: inter-stem spread median ${median(mediaSpread).toFixed(1)} ms, worst ${Math.max(...mediaSpread).toFixed(1)} ms (player's watch: worst ${Math.max(...watchSpread).toFixed(1)} ms; re-alignments: ${resyncs})`,
  );
  console.log(
    `  decoded buffers, start time/offset spread after ${rounds * seeks.length} seeks: ${bufferSpread.toFixed(3)} ms (worst)`,
  );
  console.log(`  open -> stems decoded (one at a time):   ${median(ready)} ms   ${list(ready)}`);
  console.log(`  decoded, press play -> clock advancing:   ${median(latency)} ms   ${list(latency)}`);
  console.log(`  fetch+decode 4 stems, all at once:        ${Math.round(median(parallel))} ms   ${list(parallel)}`);
  console.log(`  fetch+decode 4 stems, one after another:  ${Math.round(median(sequential))} ms   ${list(sequential)}`);
} finally {
  await browser.close();
  await s.close();
  rmSync(work, { recursive: true, force: true });
}
