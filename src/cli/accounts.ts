import { parseCommandArgs, UsageError } from './args.ts';
import { printJson, printTable, withRuntime } from './context.ts';
import { createAccount, findAccountByEmail, listAccounts } from '../store/accounts.ts';
import { createApiKey } from '../store/api-keys.ts';
import { setPasswordHash } from '../store/account-passwords.ts';
import { deleteOtherSessions } from '../store/sessions.ts';
import { MIN_PASSWORD_LENGTH } from '../contract/dashboard.ts';
import { hashPassword } from '../accounts/password.ts';
import { isEmailAddress } from '../domain/safe-text.ts';
import { setAccountAdmin, setAccountDisabled } from '../store/admin-accounts.ts';

const USAGE =
  'stemforge accounts create --email E [--password P] [--json] | accounts set-password --email E --password P | ' +
  'accounts list [--json] | accounts admin --email E [--remove] | accounts disable --email E | accounts enable --email E';

function requireEmail(value: string | undefined): string {
  const email = value?.trim();
  if (!email || !isEmailAddress(email)) throw new UsageError(`a valid --email is required\nusage: ${USAGE}`);
  return email;
}

function checkPassword(password: string | undefined, required: boolean): string | undefined {
  if (password === undefined) {
    if (required) throw new UsageError(`--password is required\nusage: ${USAGE}`);
    return undefined;
  }
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw new UsageError(`the password must have at least ${MIN_PASSWORD_LENGTH} characters`);
  }
  return password;
}

export async function run(args: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs(
    args,
    {
      email: { type: 'string' },
      password: { type: 'string' },
      json: { type: 'boolean' },
      remove: { type: 'boolean' },
    },
    USAGE,
  );
  const [sub] = positionals;
  if (sub === 'create') {
    const email = requireEmail(values.email);
    const password = checkPassword(values.password, false);
    // Hashed before the transaction: scrypt takes ~0.1 s and should not hold a write lock.
    const hash = password ? await hashPassword(password) : null;
    await withRuntime(async (rt) => {
      if (await findAccountByEmail(rt.db, email)) throw new Error(`an account with email ${email} already exists`);
      const account = await rt.db.transaction().execute(async (tx) => {
        const a = await createAccount(tx, email, rt.config.limits.freeCreditSeconds);
        if (hash) await setPasswordHash(tx, a.id, hash);
        const { key } = await createApiKey(tx, a.id);
        return { ...a, key };
      });
      if (values.json) printJson({ id: account.id, email: account.email, apiKey: account.key });
      else
        process.stdout.write(
          `created account ${account.id} (${account.email})\nAPI key (shown once): ${account.key}\n` +
            (hash ? `dashboard sign-in: ${rt.config.publicUrl}/ with this email and the given password\n` : ''),
        );
    });
    return;
  }
  if (sub === 'set-password') {
    const email = requireEmail(values.email);
    const hash = await hashPassword(checkPassword(values.password, true)!);
    await withRuntime(async (rt) => {
      const account = await findAccountByEmail(rt.db, email);
      if (!account) throw new Error(`no account with email ${email}`);
      await setPasswordHash(rt.db, account.id, hash);
      // A reset password means whoever held the old one must be signed out everywhere.
      const ended = await deleteOtherSessions(rt.db, account.id, null);
      process.stdout.write(`password set for ${account.email}; ${ended} dashboard session(s) ended\n`);
    });
    return;
  }
  if (sub === 'admin') {
    const email = requireEmail(values.email);
    await withRuntime(async (rt) => {
      const account = await findAccountByEmail(rt.db, email);
      if (!account) throw new Error(`no account with email ${email}`);
      await setAccountAdmin(rt.db, account.id, !values.remove);
      process.stdout.write(`${account.email} is ${values.remove ? 'no longer an admin' : 'an admin'}\n`);
    });
    return;
  }
  if (sub === 'disable' || sub === 'enable') {
    const email = requireEmail(values.email);
    await withRuntime(async (rt) => {
      const account = await findAccountByEmail(rt.db, email);
      if (!account) throw new Error(`no account with email ${email}`);
      await setAccountDisabled(rt.db, account.id, sub === 'disable');
      process.stdout.write(
        sub === 'disable'
          ? `${account.email} is disabled: its API keys and dashboard sessions answer 403 ACCOUNT_DISABLED\n`
          : `${account.email} is enabled\n`,
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
          accounts.map((a) => ({
            id: a.id,
            email: a.email,
            balanceSeconds: a.balanceSeconds,
            admin: a.isAdmin ? 'yes' : '',
            disabled: a.disabledAt ? 'yes' : '',
            createdAt: a.createdAt,
          })),
        );
    });
    return;
  }
  throw new UsageError(`usage: ${USAGE}`);
}
