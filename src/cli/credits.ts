import { parseCommandArgs, UsageError } from './args.ts';
import { withRuntime } from './context.ts';
import { findAccount } from '../store/accounts.ts';
import { getBalanceSeconds, grantCredits } from '../store/credits.ts';

const USAGE = 'stemforge credits grant --account ID --seconds N';

export async function run(args: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs(
    args,
    { account: { type: 'string' }, seconds: { type: 'string' }, note: { type: 'string' } },
    USAGE,
  );
  if (positionals[0] !== 'grant' || !values.account || !values.seconds) throw new UsageError(`usage: ${USAGE}`);
  const seconds = Number(values.seconds);
  if (!Number.isInteger(seconds) || seconds <= 0)
    throw new UsageError(`--seconds must be a positive whole number\nusage: ${USAGE}`);
  await withRuntime(async (rt) => {
    if (!(await findAccount(rt.db, values.account!))) throw new Error(`no account ${values.account}`);
    await rt.db
      .transaction()
      .execute((tx) => grantCredits(tx, values.account!, seconds, values.note ?? 'operator grant'));
    process.stdout.write(
      `granted ${seconds} s to ${values.account}; balance ${await getBalanceSeconds(rt.db, values.account!)} s\n`,
    );
  });
}
