// What a verb is: a function that declares one command on the program (name, description,
// options, so --help is complete without loading anything) and whose action imports the
// implementation lazily, so `agent-sandbox validate` never loads SQLite, the API server or the
// controller runtime (README.md "Adding a verb"). verbs.ts lists them.
import type { Command } from 'commander';
import type { CommandIO } from './io.ts';

export interface VerbContext {
  io: CommandIO;
  /** The CLI's version (package.json). */
  version: string;
  /** Records the exit status the run ends with; errors thrown go to report-error.ts instead. */
  setExit(code: number): void;
}

export type Verb = (program: Command, ctx: VerbContext) => void;

/** Repeatable option collector for commander (`-f a -f b`). */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** The entry point of a verb whose flags are upstream's Go-style ones (flags/go-flags.ts). */
export type GoFlagsCommand = (
  argv: readonly string[],
  io: CommandIO,
  run: { version: string },
) => Promise<number>;

/**
 * A verb that takes upstream's Go-style flags: commander passes every argument through untouched
 * (no --help of its own: the command prints upstream's), and `load` imports the implementation
 * only when the verb runs.
 */
export function goFlagsVerb(
  name: string,
  description: string,
  load: () => Promise<GoFlagsCommand>,
): Verb {
  return (program, { io, setExit, version }) => {
    program
      .command(name)
      .description(description)
      .helpOption(false)
      .passThroughOptions()
      .allowUnknownOption(true)
      .allowExcessArguments(true)
      .argument('[flags...]')
      .action(async (flags: string[]) => {
        const run = await load();
        setExit(await run(flags, io, { version }));
      });
  };
}
