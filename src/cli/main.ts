/**
 * The `stemforge` command: one binary whose role is chosen by its first argument.
 * Each command lives in its own file and is loaded only when asked for.
 */
import { HelpRequest } from './args.ts';

/** A command resolves to its exit code, or to nothing for success. */
type CommandModule = { run(args: string[]): Promise<unknown> };

const commands: Record<string, { summary: string; load: () => Promise<CommandModule> }> = {
  serve: { summary: 'run the API (and, by default, the workers)', load: () => import('./serve.ts') },
  worker: { summary: 'run workers only (scale-out deployment)', load: () => import('./worker.ts') },
  separate: {
    summary: 'split a song into stems offline: separate <input> -o <dir>',
    load: () => import('./separate.ts'),
  },
  denoise: {
    summary: 'clean noise out of speech offline: denoise <input> -o <output>',
    load: () => import('./denoise.ts'),
  },
  analyze: { summary: 'detect BPM and key: analyze <file> [--json]', load: () => import('./analyze.ts') },
  accounts: { summary: 'accounts create --email E [--json] | accounts list', load: () => import('./accounts.ts') },
  keys: {
    summary: 'keys create --account ID | keys list --account ID | keys revoke KEY_ID',
    load: () => import('./keys.ts'),
  },
  credits: { summary: 'credits grant --account ID --seconds N', load: () => import('./credits.ts') },
  webhooks: { summary: 'webhooks enable <id>', load: () => import('./webhooks.ts') },
  models: { summary: 'models list | models pull NAME [--url URL]', load: () => import('./models.ts') },
  migrate: { summary: 'apply database migrations and exit', load: () => import('./migrate.ts') },
  backup: {
    summary: 'backup DIR: a consistent copy of an embedded instance, while it runs',
    load: () => import('./backup.ts'),
  },
};

function usage(): string {
  const lines = Object.entries(commands).map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}`);
  return `usage: stemforge <command> [options]\n\ncommands:\n${lines.join('\n')}\n`;
}

const [name, ...args] = process.argv.slice(2);
if (!name || name === '--help' || name === '-h' || name === 'help') {
  process.stdout.write(usage());
  process.exit(name ? 0 : 2);
}
const command = commands[name];
if (!command) {
  process.stderr.write(`stemforge: unknown command '${name}'\n\n${usage()}`);
  process.exit(2);
}
try {
  const mod = await command.load();
  const code = await mod.run(args);
  if (typeof code === 'number') process.exitCode = code;
} catch (err) {
  if (err instanceof HelpRequest) {
    process.stdout.write(`${err.message}\n`);
  } else {
    const e = err as Error & { exitCode?: number };
    process.stderr.write(`stemforge ${name}: ${e.message}\n`);
    // Exit now: a connection still retrying (Redis, a database pool) must not keep a failed start
    // alive under a supervisor that waits for it to exit.
    process.exit(e.exitCode ?? 1);
  }
}
