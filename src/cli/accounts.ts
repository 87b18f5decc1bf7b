import { parseCommandArgs, UsageError } from './args.ts';
import { printJson, printTable, withRuntime } from './context.ts';
import { createAccount, findAccountByEmail, listAccounts } from '../store/accounts.ts';
import { createApiKey } from '../store/api-keys.ts';

const USAGE = 'stemforge accounts create --email E [--json] | stemforge accounts list [--json]';

export async function run(args: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs(
    args,
    { email: { type: 'string' }, json: { type: 'boolean' } },
    USAGE,
  );
  const [sub] = positionals;
  if (sub === 'create') {
    const email = values.email?.trim();
    if (!email || !/^[^\s@]+@[^\s@]+$/.test(email))
      throw new UsageError(`a valid --email is required\nusage: ${USAGE}`);
    await withRuntime(async (rt) => {
      if (await findAccountByEmail(rt.db, email)) throw new Error(`an account with email ${email} already exists`);
      const account = await rt.db.transaction().execute(async (tx) => {
        const a = await createAccount(tx, email, rt.config.limits.freeCreditSeconds);
        const { key } = await createApiKey(tx, a.id);
        return { ...a, key };
      });
      if (values.json) printJson({ id: account.id, email: account.email, apiKey: account.key });
      else
        process.stdout.write(
          `created account ${account.id} (${account.email})\nAPI key (shown once): ${account.key}\n`,
        );
    });
    return;
  }
  if (sub === 'list') {
    await withRuntime(async (rt) => {
      const accounts = await listAccounts(rt.db);
      if (values.json) printJson(accounts);
      else
        printTable(
          accounts.map((a) => ({ id: a.id, email: a.email, balanceSeconds: a.balanceSeconds, createdAt: a.createdAt })),
        );
    });
    return;
  }
  throw new UsageError(`usage: ${USAGE}`);
}
