import { parseArgs, type ParseArgsConfig } from 'node:util';

/** An error in the command line: printed with the command's usage, exit code 2. */
export class UsageError extends Error {
  exitCode = 2;
}

/** Parses a command's arguments with node's parseArgs, turning its errors into UsageErrors. */
export function parseCommandArgs<T extends NonNullable<ParseArgsConfig['options']>>(
  args: string[],
  options: T,
  usage: string,
) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\nusage: ${usage}`);
  }
}
