import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, assert, beforeAll, describe, expect, test } from 'vitest';
import { bootstrapLocalAccount } from '../src/bootstrap.ts';
import { DASHBOARD_CSP, dashboardCsp } from '../src/dashboard/routes/pages.ts';
import { createBlobStore } from '../src/storage/create-blob-store.ts';
import { UrlSigner } from '../src/storage/url-signer.ts';
import { loadConfig } from '../src/config.ts';
import { dashboardClient, newDashboardUser, signedIn, BEHIND_LOCAL_PROXY } from './helpers/dashboard.ts';
import { stemforge } from './helpers/cli.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { printedApiKey } from './helpers/stemforge-process.ts';

describe('dashboard pages, first start and operator CLI', () => {
  let s: TestServer;
  let web: string;
  beforeAll(async () => {
    web = mkdtempSync(join(tmpdir(), 'stemforge-web-'));
    mkdirSync(join(web, 'assets'));
    writeFileSync(
      join(web, 'index.html'),
      '<!doctype html><title>Stemforge dashboard</title><script src="/assets/app-1a2b.js"></script>',
    );
    writeFileSync(join(web, 'assets', 'app-1a2b.js'), 'console.log("app")');
    writeFileSync(join(web, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    s = await startTestServer(
      'sqlite',
      { ...BEHIND_LOCAL_PROXY, STEMFORGE_ADMIN_EMAIL: 'Owner@Example.com' },
      { webDir: web },
    );
  });
  afterAll(async () => {
    await s?.close();
    await rm(web, { recursive: true, force: true });
  });

  test('the SPA at / and its client routes, with the CSP; assets by path; API prefixes keep their JSON 404s', async () => {
    for (const path of ['/', '/sign-in', '/jobs', '/jobs/job_123', '/keys', '/webhooks?x=1', '/account']) {
      const res = await fetch(`${s.base}${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('content-security-policy')).toBe(DASHBOARD_CSP);
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(await res.text()).toContain('Stemforge dashboard');
    }
    // Scripts of this site only; WebAssembly may compile (the player's tempo and pitch), JavaScript eval may not.
    expect(DASHBOARD_CSP).toContain("script-src 'self' 'wasm-unsafe-eval';");
    expect(DASHBOARD_CSP).not.toContain("'unsafe-eval'");
    expect(DASHBOARD_CSP).not.toContain('unsafe-inline');
    // With S3 storage the stems come from the bucket's endpoint: allowed for media and fetch only.
    const s3 = loadConfig({ STORAGE: 's3', S3_BUCKET: 'b', S3_ENDPOINT: 'http://127.0.0.1:9000/x' });
    const bucket = createBlobStore(s3.storage, { publicUrl: s3.publicUrl, signer: new UrlSigner('s'.repeat(32)) });
    expect(dashboardCsp(bucket.capabilities.downloadOrigins)).toContain(
      "media-src 'self' http://127.0.0.1:9000 blob:; connect-src 'self' http://127.0.0.1:9000;",
    );

    const js = await fetch(`${s.base}/assets/app-1a2b.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toContain('immutable');
    expect(await js.text()).toBe('console.log("app")');
    expect((await fetch(`${s.base}/favicon.svg`)).headers.get('content-type')).toBe('image/svg+xml');

    for (const path of [
      '/assets/missing.js',
      '/assets/..%2f..%2fpackage.json',
      '/v1/nope',
      '/api/nope',
      '/docs/nope',
      '/dashboard/api/nope',
    ]) {
      const res = await fetch(`${s.base}${path}`);
      expect([401, 404], path).toContain(res.status);
      expect(res.headers.get('content-type'), path).toContain('application/json');
    }
    const v1 = await fetch(`${s.base}/v1/nope`);
    expect(await v1.json()).toEqual({ error: { code: 'NOT_FOUND', message: 'No route GET /v1/nope.' } });
    expect((await fetch(`${s.base}/`, { method: 'POST' })).status).toBe(404);
  });

  test('without a build, / says how to make one and the API still answers', async () => {
    const bare = await startTestServer('sqlite', BEHIND_LOCAL_PROXY, { webDir: join(web, 'not-built') });
    try {
      const res = await fetch(`${bare.base}/`);
      expect(res.status).toBe(503);
      expect(res.headers.get('content-security-policy')).toBe(DASHBOARD_CSP);
      expect(await res.text()).toContain('npm run build:web');
      expect((await fetch(`${bare.base}/v1/health`)).status).toBeLessThan(500);
    } finally {
      await bare.close();
    }
  });

  test('over https (PUBLIC_URL) the session cookie is Secure', async () => {
    const tls = await startTestServer(
      'sqlite',
      { ...BEHIND_LOCAL_PROXY, PUBLIC_URL: 'https://stems.example.com' },
      { webDir: web },
    );
    try {
      const user = await newDashboardUser(tls);
      const res = await dashboardClient(tls).call(
        'POST',
        '/session',
        { email: user.email, password: user.password },
        { origin: 'https://stems.example.com' },
      );
      expect(res.status).toBe(200);
      expect(res.headers.get('set-cookie')).toMatch(/; Secure$/);
    } finally {
      await tls.close();
    }
  });

  test('the first start prints the API key and a dashboard password that signs in; only once', async () => {
    const banner = await bootstrapLocalAccount(s.rt);
    expect(banner).toContain('API key: sk_');
    expect(banner).toContain('Email:    owner@example.com');
    const password = /Password: (\S+)/.exec(banner!)?.[1];
    assert(password, 'no password in the banner');
    expect(password.length).toBeGreaterThanOrEqual(20);
    const c = dashboardClient(s);
    expect((await c.signIn('owner@example.com', password)).status).toBe(200);
    expect(await bootstrapLocalAccount(s.rt)).toBeNull();
    // The first account is the admin (issue 30): its key reaches the admin API, and the banner says so.
    expect(banner).toContain('(owner@example.com), the admin');
    const key = printedApiKey(banner!) ?? undefined;
    expect((await s.api('/v1/admin/accounts', { key })).status).toBe(200);
    expect(await (await c.call('GET', '/session')).json()).toMatchObject({ account: { isAdmin: true } });
  });

  test('stemforge accounts create --password and set-password; set-password ends the sessions', async () => {
    const env = { STEMFORGE_DATA_DIR: s.dataDir };
    const email = `cli-${Date.now()}@example.com`;
    const created = await stemforge(
      ['accounts', 'create', '--email', email, '--password', 'first password 1', '--json'],
      env,
    );
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const out = JSON.parse(created.stdout) as { id: string; email: string; apiKey: string };
    expect(out).toMatchObject({ email, apiKey: expect.stringMatching(/^sk_/) });
    const c = dashboardClient(s);
    expect((await c.signIn(email, 'first password 1')).status).toBe(200);

    const set = await stemforge(['accounts', 'set-password', '--email', email, '--password', 'second password 2'], env);
    expect(set.code).toBe(0);
    expect(set.stdout).toContain('1 dashboard session(s) ended');
    expect((await c.call('GET', '/session')).status).toBe(401);
    expect((await dashboardClient(s).signIn(email, 'first password 1')).status).toBe(401);
    expect((await dashboardClient(s).signIn(email, 'second password 2')).status).toBe(200);

    const short = await stemforge(['accounts', 'set-password', '--email', email, '--password', 'short'], env);
    expect(short.code).toBe(2);
    expect(short.stderr).toContain('at least 10 characters');
    const unknown = await stemforge(
      ['accounts', 'set-password', '--email', 'nobody@example.com', '--password', 'long enough pw'],
      env,
    );
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no account with email nobody@example.com');
    // A user made by the test helper is unaffected.
    await signedIn(s, await newDashboardUser(s));
  });
});
