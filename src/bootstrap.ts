import type { Runtime } from './runtime.ts';
import { countAccounts, createAccount } from './store/accounts.ts';
import { createApiKey } from './store/api-keys.ts';

export const LOCAL_ACCOUNT_EMAIL = 'local@stemforge.local';

/**
 * On the first start of an empty instance, creates a local account with an API key and returns the
 * text to print once (the key is never shown again). Returns null when accounts already exist.
 */
export async function bootstrapLocalAccount(rt: Runtime): Promise<string | null> {
  if ((await countAccounts(rt.db)) > 0) return null;
  const account = await createAccount(rt.db, LOCAL_ACCOUNT_EMAIL, rt.config.limits.freeCreditSeconds);
  const { key } = await createApiKey(rt.db, account.id);
  const base = `${rt.config.publicUrl}/v1`;
  return [
    '',
    '  Stemforge created a local account on this first start.',
    `  Account: ${account.id} (${account.email})`,
    `  API key: ${key}`,
    `  This key is shown only once: store it now. More keys: npx stemforge keys create --account ${account.id}`,
    '',
    '  Try it:',
    `    curl -H "Authorization: Bearer ${key}" ${base}/balance`,
    '',
  ].join('\n');
}
