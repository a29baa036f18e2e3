// The `agent-sandbox` command line. The only place that reads process state is bin/; main()
// takes argv and streams so tests run it in-process.
import { readFileSync } from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import { addApiserverCommand } from './commands/apiserver.ts';
import { addControllerCommand } from './commands/controller.ts';
import { runManifestsCrds } from './commands/manifests.ts';
import { addStartCommand } from './commands/start.ts';
import { runValidate } from './commands/validate.ts';
import type { CommandIO } from './io.ts';
import { ManifestReadError } from './manifest-reader.ts';
import { PlaceholderError } from './placeholders.ts';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

const processIO: CommandIO = {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  stdin: () => readFileSync(0, 'utf8'),
};

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

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

  program
    .command('validate')
    .description(
      'validate manifests (multi-document YAML or JSON) as the API server would admit them',
    )
    .requiredOption(
      '-f, --filename <path>',
      'a file, a directory (recursive) or - for stdin; repeatable',
      collect,
    )
    .option(
      '--set <NAME=VALUE>',
      'substitute ${NAME} placeholders before validating; repeatable',
      collect,
      [],
    )
    .option(
      '--partial',
      'validate patch fragments (e.g. kustomize patches): skip missing required fields',
      false,
    )
    .addOption(
      new Option(
        '--allowed-label-domains <domains>',
        'label domains a claim may add to its Pod (comma-separated)',
      ).argParser((v) =>
        v
          .split(',')
          .map((d) => d.trim())
          .filter((d) => d !== ''),
      ),
    )
    .action(
      (opts: {
        filename: string[];
        set: string[];
        partial: boolean;
        allowedLabelDomains?: string[];
      }) => {
        setExit(runValidate(opts, io));
      },
    );

  const manifests = program
    .command('manifests')
    .description('print installation manifests as YAML');
  manifests
    .command('crds')
    .description('the four CustomResourceDefinitions')
    .action(() => setExit(runManifestsCrds(io)));

  addStartCommand(program, io, setExit);

  addApiserverCommand(program, io, setExit);

  addControllerCommand(program, io, setExit, pkg.version);

  return program;
}

/** Runs the CLI; returns the process exit code. */
export async function main(argv: string[], io: CommandIO = processIO): Promise<number> {
  let code = 0;
  const program = buildProgram(io, (c) => {
    code = c;
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
    return code;
  } catch (err: unknown) {
    if (err instanceof CommanderError) return err.exitCode;
    if (err instanceof ManifestReadError || err instanceof PlaceholderError) {
      io.stderr(`error: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
}
