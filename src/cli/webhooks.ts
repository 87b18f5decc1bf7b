import { parseCommandArgs, UsageError } from './args.ts';
import { printJson, withRuntime } from './context.ts';
import { enableWebhook } from '../store/webhooks.ts';

const USAGE = 'stemforge webhooks enable <webhook id> [--json]';

/**
 * Operator commands for webhooks. `enable` re-activates a webhook that was disabled after five
 * consecutive failed deliveries (the contract has no REST route for it: "dashboard only"); it calls
 * the same `enableWebhook` a dashboard would.
 */
export async function run(args: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs(args, { json: { type: 'boolean' } }, USAGE);
  const [sub, id, ...rest] = positionals;
  if (sub !== 'enable' || !id || rest.length) throw new UsageError(`usage: ${USAGE}`);
  await withRuntime(async (rt) => {
    const webhook = await enableWebhook(rt.db, id);
    if (!webhook) throw new Error(`no webhook ${id} (unknown or deleted)`);
    if (values.json) printJson(webhook);
    else
      process.stdout.write(
        `enabled webhook ${webhook.id} (${webhook.url}): isActive true, failCount 0, lastError cleared\n`,
      );
  });
}
