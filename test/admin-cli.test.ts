import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { stemforge } from './helpers/cli.ts';
import { findAccount } from '../src/store/accounts.ts';

/** The operator's command line beside the admin API: make or unmake an admin, disable, enable. */
describe('stemforge accounts admin / disable / enable', () => {
  let s: TestServer;
  let first: { id: string; key: string };
  let other: { id: string; key: string };
  let env: Record<string, string>;

  beforeAll(async () => {
    s = await startTestServer('sqlite');
    env = { STEMFORGE_DATA_DIR: s.dataDir };
    first = await s.newAccount();
    other = await s.newAccount();
  });
  afterAll(async () => {
    await s?.close();
  });

  const emailOf = async (id: string) => (await findAccount(s.rt.db, id))!.email;

  test('admin makes an account an admin and --remove takes it back; the API follows', async () => {
    const email = await emailOf(other.id);
    expect((await s.api('/v1/admin/accounts', { key: other.key })).status).toBe(403);
    const made = await stemforge(['accounts', 'admin', '--email', email], env);
    expect(made.code).toBe(0);
    expect(made.stdout).toBe(`${email} is an admin\n`);
    expect((await s.api('/v1/admin/accounts', { key: other.key })).status).toBe(200);
    const list = await stemforge(['accounts', 'list', '--json'], env);
    const rows = JSON.parse(list.stdout) as Array<{ id: string; isAdmin: boolean }>;
    expect(rows.filter((r) => r.isAdmin).map((r) => r.id)).toEqual([first.id, other.id]);
    expect((await stemforge(['accounts', 'admin', '--email', email, '--remove'], env)).stdout).toBe(
      `${email} is no longer an admin\n`,
    );
    expect((await s.api('/v1/admin/accounts', { key: other.key })).status).toBe(403);
  });

  test('disable and enable', async () => {
    const email = await emailOf(other.id);
    expect((await stemforge(['accounts', 'disable', '--email', email], env)).code).toBe(0);
    const res = await s.api('/v1/balance', { key: other.key });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('ACCOUNT_DISABLED');
    expect((await stemforge(['accounts', 'enable', '--email', email], env)).code).toBe(0);
    expect((await s.api('/v1/balance', { key: other.key })).status).toBe(200);
    const unknown = await stemforge(['accounts', 'disable', '--email', 'nobody@example.com'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no account with email nobody@example.com');
  });
});
