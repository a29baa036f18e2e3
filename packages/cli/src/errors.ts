// The CLI's one error root (STYLE error rule 1): every error the CLI throws is a CliError with a
// stable `code`, and each code has one exit status. report-error.ts is the one place that turns
// any thrown error into a message on stderr and an exit status.

export type CliErrorCode =
  /** A command line that does not parse: unknown command or option, missing argument. */
  | 'Usage'
  /** A flag, argument or option the user can fix by changing the command line. */
  | 'InvalidFlag'
  /** Input files or stdin the user can fix (unreadable paths, placeholders). */
  | 'InvalidInput'
  /** Asked for something this build cannot do yet. */
  | 'Unavailable'
  /** The command ran and failed for a reason its message names. */
  | 'Failed';

/**
 * Exit status per code: 2 for a command line that cannot run (Go's flag package and most CLIs),
 * 1 for a command that ran and failed.
 */
export const EXIT_CODES: Readonly<Record<CliErrorCode, number>> = {
  Usage: 2,
  InvalidFlag: 2,
  Unavailable: 2,
  InvalidInput: 1,
  Failed: 1,
};

export class CliError extends Error {
  readonly code: CliErrorCode;

  constructor(code: CliErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** A bad flag or flag value; the message names the flag, the reason and the default or fix. */
export class FlagError extends CliError {
  constructor(message: string, options?: ErrorOptions) {
    super('InvalidFlag', message, options);
  }
}

/** An error class a package throws as its root (KubeError, LocalError, ...). */
export type ErrorRoot = abstract new (...args: never[]) => Error;

export interface FailureRoots {
  /** Roots whose messages are complete sentences naming the fix (printed as they are). */
  complete?: readonly ErrorRoot[];
  /** Roots whose message is context and whose cause has the detail (printed `message: cause`). */
  withCause?: readonly ErrorRoot[];
}

/**
 * A package error the user can act on, as a CliError (`Failed`, exit 1) with the message to
 * print; undefined for anything else (a bug, which the caller rethrows). Verbs call this at
 * their boundary with the roots of the packages they use, so main() needs none of them loaded.
 */
export function failureOf(err: unknown, roots: FailureRoots): CliError | undefined {
  if (err instanceof CliError) return err;
  if (isInstanceOfAny(err, roots.complete))
    return new CliError('Failed', err.message, { cause: err });
  if (isInstanceOfAny(err, roots.withCause)) {
    const detail = err.cause instanceof Error ? `: ${err.cause.message}` : '';
    return new CliError('Failed', `${err.message}${detail}`, { cause: err });
  }
  return undefined;
}

function isInstanceOfAny(err: unknown, roots: readonly ErrorRoot[] = []): err is Error {
  return roots.some((root) => err instanceof root);
}
