// The `agent-sandbox` command line. The only places that read process state are bin/ and
// process-io.ts; main() takes argv and an injected CommandIO so tests run it in-process. Verbs are
// declared by verbs.ts and load their implementations on use; errors from any of them end in
// report-error.ts.
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import type { CommandIO } from './io.ts';
import { processIO } from './process-io.ts';
import { exitCodeFor } from './report-error.ts';
import { VERBS } from './verbs.ts';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

function buildProgram(io: CommandIO, setExit: (code: number) => void): Command {
  const program = new Command('agent-sandbox')
    .description(
      'Isolated, stateful, singleton sandboxes for AI agents, on Kubernetes or on one machine.',
    )
    .version(pkg.version, '-v, --version', 'print the version')
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .exitOverride()
    // Program options only before the command: `controller --version` is upstream's flag.
    .enablePositionalOptions()
    .showHelpAfterError('(run with --help for usage)');
  for (const verb of VERBS) verb(program, { io, version: pkg.version, setExit });
  return program;
}

/** Runs the CLI; returns the process exit code. */
export async function main(argv: string[], io: CommandIO = processIO()): Promise<number> {
  let code = 0;
  const program = buildProgram(io, (c) => {
    code = c;
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
    return code;
  } catch (err: unknown) {
    return exitCodeFor(err, io);
  }
}
