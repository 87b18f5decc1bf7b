import { parseArgs, type ParseArgsConfig } from 'node:util';

/** An error in the command line: printed with the command's usage, exit code 2. */
export class UsageError extends Error {
  exitCode = 2;
}

/** `--help` or `-h` given to a command: main prints its usage on stdout and exits 0. */
export class HelpRequest extends Error {
  exitCode = 0;
}

/**
 * Parses a command's arguments with node's parseArgs, turning its errors into UsageErrors; `--help`
 * or `-h` (before any `--`) asks for the usage instead.
 */
export function parseCommandArgs<T extends NonNullable<ParseArgsConfig['options']>>(
  args: string[],
  options: T,
  usage: string,
) {
  const end = args.indexOf('--');
  if ((end < 0 ? args : args.slice(0, end)).some((a) => a === '--help' || a === '-h'))
    throw new HelpRequest(`usage: ${usage}`);
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\nusage: ${usage}`);
  }
}

/** For a command that takes no arguments: refuses any (options and positionals), answers `--help`. */
export function expectNoArgs(args: string[], usage: string): void {
  const { positionals } = parseCommandArgs(args, {}, usage);
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'\nusage: ${usage}`);
}
