import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { beforeEach, expect } from 'vitest';

/** A phone's screen, as the dashboard's phone checks use it. */
export const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };

/** Debian's Chromium, headless, as the browser tests launch it. */
export const CHROMIUM = {
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
};

const axeSource = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * Collects a page's uncaught errors and console errors into `problems` and accepts its dialogs.
 * Answers the page handles (signed out, not found, a 409 shown as a message) are logged by Chromium
 * as resource errors and left out.
 */
export function watchPage(p: Page, problems: string[]): void {
  p.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  p.on('console', (m) => {
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(m.text());
  });
  p.on('dialog', (d) => void d.accept());
}

/** axe-core in the page (evaluated over DevTools, so the page's CSP still forbids inline script): no serious or critical violation. */
export async function expectAccessible(p: Page, name: string): Promise<void> {
  await p.evaluate(axeSource);
  const violations: { id: string; impact: string; nodes: { target: string[] }[] }[] = await p.evaluate(
    async () => ((await (globalThis as any).axe.run((globalThis as any).document)) as any).violations,
  );
  const bad = violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${name}: ${v.id} (${v.impact}) at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  expect(bad).toEqual([]);
}

/** Waits for the page's level-1 heading. */
export const heading = (p: Page, name: string | RegExp) => p.getByRole('heading', { level: 1, name }).waitFor();

/** Signs in through the dashboard's form and waits for the overview. */
export async function signInAs(p: Page, base: string, who: { email: string; password: string }): Promise<void> {
  await p.goto(`${base}/sign-in`);
  await p.getByLabel('Email').fill(who.email);
  await p.getByLabel('Password').fill(who.password);
  await p.getByRole('button', { name: 'Sign in' }).click();
  await heading(p, 'Overview');
}

/** One of the four screens the accessibility checks cover. */
export interface Screen {
  name: 'desktop' | 'phone';
  colorScheme: 'light' | 'dark';
}

/**
 * Signs `who` in on each of the four screens in turn (a desktop `desktopWidth` px wide and PHONE,
 * light and dark), runs `visit` on the page and closes its context.
 */
export async function onEachScreen(
  browser: Browser,
  signIn: { base: string; who: { email: string; password: string }; problems: string[]; desktopWidth: number },
  visit: (p: Page, screen: Screen) => Promise<void>,
): Promise<void> {
  const sizes = { desktop: { viewport: { width: signIn.desktopWidth, height: 900 } }, phone: PHONE };
  for (const name of ['desktop', 'phone'] as const) {
    for (const colorScheme of ['light', 'dark'] as const) {
      const c = await browser.newContext({ ...sizes[name], colorScheme });
      const p = await c.newPage();
      watchPage(p, signIn.problems);
      await signInAs(p, signIn.base, signIn.who);
      await visit(p, { name, colorScheme });
      await c.close();
    }
  }
}

/** `npm ci` builds the front end (prepare); build it here when a checkout has not. */
export function ensureWebBuilt(): void {
  const root = resolve(import.meta.dirname, '../..');
  if (!existsSync(resolve(root, 'web/dist/index.html'))) {
    execFileSync(process.execPath, [resolve(root, 'web/build.mjs'), '--no-check'], { stdio: 'inherit' });
  }
}

/** The steps of a describe build on each other: after a failure the rest are skipped (they would only time out). */
export function stepsInOrder(): void {
  let failed = false;
  beforeEach(({ skip, onTestFailed }) => {
    if (failed) skip();
    onTestFailed(() => {
      failed = true;
    });
  });
}
