// Every error of @agent-sandbox/sandboxd extends SandboxdError (STYLE error rule 1). The code is
// the daemon's own vocabulary; each server maps it once at its boundary (REST status + `code`,
// gRPC status, legacy `{"message"}`).
export type SandboxdErrorCode =
  | 'PathEscapes'
  | 'NotFound'
  | 'PermissionDenied'
  | 'InvalidArgument'
  | 'Conflict'
  | 'TooLarge'
  | 'FailedPrecondition'
  | 'ResourceExhausted'
  | 'Unavailable'
  | 'Internal';

export class SandboxdError extends Error {
  readonly code: SandboxdErrorCode;
  constructor(code: SandboxdErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
  }
}

export const sandboxdError = (code: SandboxdErrorCode, message: string, cause?: unknown) =>
  new SandboxdError(code, message, cause === undefined ? undefined : { cause });

/** An option that cannot work; the message names the option and the fix. */
export class InvalidOptionError extends SandboxdError {
  constructor(message: string) {
    super('InvalidArgument', message);
  }
}

/** One structured log line: `msg` plus fields; the entry point writes it (library code never). */
export type LogFn = (msg: string, fields: Record<string, unknown>) => void;

export function errnoCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err
    ? String((err as { code: unknown }).code)
    : undefined;
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
