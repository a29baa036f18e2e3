// The one place that turns a thrown error into what the user sees: a line on stderr and an exit
// status. Commander's own errors have printed already: --help and --version exit 0, and every
// other one is a command line that does not parse, the CLI's `Usage` code (exit 2, as scripts
// expect of a usage error); commander's own default would be 1. CliErrors print
// `error: <message>` and exit by their code (errors.ts EXIT_CODES). Anything else is a bug and
// is rethrown, so it crashes with its stack instead of hiding.
import { CommanderError } from 'commander';
import { CliError, EXIT_CODES } from './errors.ts';
import type { CommandIO } from './io.ts';

export function exitCodeFor(err: unknown, io: Pick<CommandIO, 'stderr'>): number {
  if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : EXIT_CODES.Usage;
  if (err instanceof CliError) {
    io.stderr(`error: ${err.message}\n`);
    return EXIT_CODES[err.code];
  }
  throw err;
}
