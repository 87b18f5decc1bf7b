import { expectNoArgs } from './args.ts';
import { withRuntime } from './context.ts';

/** Applies database migrations (createRuntime migrates on connect) and exits. */
export async function run(args: string[]): Promise<void> {
  expectNoArgs(args, 'stemforge migrate');
  await withRuntime(async (rt) => {
    process.stdout.write(`database migrated (${rt.dialect})\n`);
  });
}
