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
