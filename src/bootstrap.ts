import type { Runtime } from './runtime.ts';
import { countAccounts, createAccount } from './store/accounts.ts';
import { createApiKey } from './store/api-keys.ts';
import { setPasswordHash } from './store/account-passwords.ts';
import { generatePassword, hashPassword } from './accounts/password.ts';

/**
 * On the first start of an empty instance, creates a local account (email STEMFORGE_ADMIN_EMAIL)
 * with an API key and a dashboard password, and returns the text to print once (neither is ever
 * shown again). Returns null when accounts already exist.
 */
export async function bootstrapLocalAccount(rt: Runtime): Promise<string | null> {
  if ((await countAccounts(rt.db)) > 0) return null;
  const password = generatePassword();
  const hash = await hashPassword(password);
  const { account, key } = await rt.db.transaction().execute(async (tx) => {
    const account = await createAccount(tx, rt.config.dashboard.adminEmail, rt.config.limits.freeCreditSeconds);
    await setPasswordHash(tx, account.id, hash);
    const { key } = await createApiKey(tx, account.id, 'first start');
    return { account, key };
  });
  const site = rt.config.publicUrl;
  return [
    '',
    '  Stemforge created a local account on this first start.',
    `  Account: ${account.id} (${account.email}), the admin: its key reaches /v1/admin, its sign-in the Admin page`,
    `  API key: ${key}`,
    `  This key is shown only once: store it now. More keys: ${rt.config.cliCommand} keys create --account ${account.id}`,
    '',
    `  Dashboard: ${site}/`,
    `    Email:    ${account.email}`,
    `    Password: ${password}`,
    `  This password is shown only once. Change it in the dashboard, or: ${rt.config.cliCommand} accounts set-password --email ${account.email} --password NEW`,
    '',
    '  Try it:',
    `    curl -H "Authorization: Bearer ${key}" ${site}/v1/balance`,
    '',
  ].join('\n');
}
