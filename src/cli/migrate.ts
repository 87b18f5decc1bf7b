import { withRuntime } from './context.ts';

/** Applies database migrations (createRuntime migrates on connect) and exits. */
export async function run(): Promise<void> {
  await withRuntime(async (rt) => {
    process.stdout.write(`database migrated (${rt.dialect})\n`);
  });
}
