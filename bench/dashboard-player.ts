/**
 * The dashboard's stem player on a 4-minute FOUR_STEMS job (4 MP3 stems, 44.1 kHz stereo, 192 kb/s)
 * in headless Chromium against the real server on loopback:
 * - open -> ready: the page fetches and decodes the four stems (in parallel) when the job opens;
 * - press play -> clock advancing (the bar: within 2 s);
 * - open + immediate play -> clock advancing (play pressed before the stems are decoded);
 * - stem alignment after seeks: every stem's source start time and buffer offset;
 * - peer, same run, alternating: fetching + decoding the four stems one after another instead.
 * Prints figures; asserts nothing.
 *   node bin/run-ts.mjs bench/dashboard-player.ts [rounds=3]
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { startTestServer } from '../test/helpers/server.ts';
import { sharedPath } from '../support/shared.ts';
import { commitFinishedJob } from '../test/helpers/finished-job.ts';
import { createAccount } from '../src/store/accounts.ts';
import { setPasswordHash } from '../src/store/account-passwords.ts';
import { hashPassword } from '../src/dashboard/password.ts';

const rounds = Number(process.argv[2] ?? 3);
const root = resolve(import.meta.dirname, '..');
if (!existsSync(join(root, 'web/dist/index.html'))) {
  execFileSync(process.execPath, [join(root, 'web/build.mjs'), '--no-check'], { stdio: 'inherit' });
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

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
  const openToSound: number[] = [];
  const parallel: number[] = [];
  const sequential: number[] = [];
  let worstSpread = 0;
  const urls: string[] = await page.locator('li.stem a[download]').evaluateAll((as) => as.map((a) => (a as any).href));
  for (let r = 0; r < rounds; r++) {
    // 1. open, wait until decoded, press play.
    await page.goto(jobUrl);
    await page.locator('section.player[data-ready="true"]').waitFor({ timeout: 120_000 });
    ready.push(Number(await page.locator('section.player').getAttribute('data-load-ms')));
    await page.getByRole('button', { name: 'Play' }).click();
    await page.locator('section.player:not([data-play-latency-ms=""])').waitFor();
    latency.push(Number(await page.locator('section.player').getAttribute('data-play-latency-ms')));
    for (const at of [200, 30, 120.5, 5, 233]) {
      await page.getByLabel('Position', { exact: true }).fill(String(at));
      await page.waitForTimeout(100);
      const starts: string[] = await page
        .locator('li.stem')
        .evaluateAll((els) => els.map((e) => (e as any).dataset.start ?? ''));
      const whens = starts.map((x) => Number(x.split('@')[0]));
      const offsets = starts.map((x) => Number(x.split('@')[1]));
      worstSpread = Math.max(
        worstSpread,
        (Math.max(...whens) - Math.min(...whens)) * 1000,
        (Math.max(...offsets) - Math.min(...offsets)) * 1000,
      );
    }
    // 2. open and press play at once (before the stems are decoded).
    const t0 = Date.now();
    await page.goto(jobUrl);
    await page.getByRole('button', { name: 'Play' }).click();
    await page.waitForFunction(
      () => Number((globalThis as any).document.querySelector('.clock')?.getAttribute('data-position')) > 0,
      null,
      {
        timeout: 120_000,
        polling: 20,
      },
    );
    openToSound.push(Date.now() - t0);
    // 3. decoding peer, alternating order: all four at once vs one after another.
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
  console.log(`CPU: ${cpus()[0]?.model} x${cpus().length} (shared with other engineers' work: figures are noisy)`);
  console.log(
    `4-minute FOUR_STEMS job, 4 x ${(outputs.vocals.length / 1e6).toFixed(1)} MB MP3, ${rounds} rounds, medians:`,
  );
  console.log(`  open -> stems decoded (player ready):     ${median(ready)} ms   [${ready.join(', ')}]`);
  console.log(`  press play (ready) -> clock advancing:    ${median(latency)} ms   [${latency.join(', ')}]`);
  console.log(`  open + play at once -> clock advancing:   ${median(openToSound)} ms   [${openToSound.join(', ')}]`);
  console.log(`  stems' start time/offset spread after 5 seeks per round: ${worstSpread.toFixed(3)} ms (worst)`);
  console.log(
    `  fetch+decode 4 stems, parallel (ours):    ${Math.round(median(parallel))} ms   [${parallel.map(Math.round).join(', ')}]`,
  );
  console.log(
    `  fetch+decode 4 stems, one after another:  ${Math.round(median(sequential))} ms   [${sequential.map(Math.round).join(', ')}]`,
  );
} finally {
  await browser.close();
  await s.close();
  rmSync(work, { recursive: true, force: true });
}
