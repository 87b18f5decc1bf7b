import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type Browser, chromium } from 'playwright-core';
import { startTestServer, type TestServer } from './helpers/server.ts';

/** The `/docs` page in a real browser: Swagger UI renders the served OpenAPI document, under its CSP. */
describe('API reference page (Chromium)', () => {
  let s: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    s = await startTestServer('sqlite');
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  test('lists every operation of the OpenAPI document and breaks no CSP rule', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(`${s.base}/docs`);
    await page.locator('.opblock').first().waitFor({ timeout: 30_000 });
    const doc = (await (await s.api('/v1/openapi.json')).json()) as { paths: Record<string, object> };
    const operations = Object.values(doc.paths).reduce((n, ops) => n + Object.keys(ops).length, 0);
    expect(await page.locator('.opblock').count()).toBe(operations);
    await expect(page.locator('.opblock-summary-path', { hasText: '/v1/upload' }).first().isVisible()).resolves.toBe(
      true,
    );
    expect(problems).toEqual([]);
  });
});
