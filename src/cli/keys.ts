import { parseCommandArgs, UsageError } from './args.ts';
import { printJson, printTable, withRuntime } from './context.ts';
import { findAccount } from '../store/accounts.ts';
import { createApiKey, listApiKeys, revokeApiKey } from '../store/api-keys.ts';

const USAGE = 'stemforge keys create --account ID [--json] | keys list --account ID [--json] | keys revoke KEY_ID';

export async function run(args: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs(
    args,
    { account: { type: 'string' }, json: { type: 'boolean' } },
    USAGE,
  );
  const [sub, keyId] = positionals;
  await withRuntime(async (rt) => {
    const account = async () => {
      if (!values.account) throw new UsageError(`--account is required\nusage: ${USAGE}`);
      if (!(await findAccount(rt.db, values.account))) throw new Error(`no account ${values.account}`);
      return values.account;
    };
    if (sub === 'create') {
      const { key, info } = await createApiKey(rt.db, await account());
      if (values.json) printJson({ id: info.id, accountId: info.accountId, apiKey: key });
      else process.stdout.write(`created key ${info.id}\nAPI key (shown once): ${key}\n`);
    } else if (sub === 'list') {
      const keys = await listApiKeys(rt.db, await account());
      if (values.json) printJson(keys);
      else
        printTable(
          keys.map((k) => ({
            id: k.id,
            prefix: `${k.prefix}…`,
            createdAt: k.createdAt,
            lastUsedAt: k.lastUsedAt ?? '-',
            revokedAt: k.revokedAt ?? '-',
          })),
        );
    } else if (sub === 'revoke') {
      if (!keyId) throw new UsageError(`usage: ${USAGE}`);
      if (!(await revokeApiKey(rt.db, keyId))) throw new Error(`no key ${keyId}`);
      process.stdout.write(`revoked key ${keyId}\n`);
    } else {
      throw new UsageError(`usage: ${USAGE}`);
    }
  });
}
