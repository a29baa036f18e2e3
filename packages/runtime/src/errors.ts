// Every error of @agent-sandbox/runtime extends RuntimeError (STYLE error rule 1).

export type RuntimeErrorCode =
  'Terminal' | 'InvalidArgument' | 'LeaderElectionLost' | 'CacheSyncTimeout';

export class RuntimeError extends Error {
  readonly code: RuntimeErrorCode;
  constructor(message: string, options: { code: RuntimeErrorCode; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = options.code;
  }
}

/**
 * Thrown by a reconciler for a problem retrying cannot fix (controller-runtime's
 * reconcile.TerminalError): the controller counts and logs it and does not requeue the key.
 * A later change to a watched object triggers a fresh reconcile as usual.
 */
export class TerminalError extends RuntimeError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, { code: 'Terminal', ...options });
  }
}

export function invalidArgument(message: string): RuntimeError {
  return new RuntimeError(message, { code: 'InvalidArgument' });
}

export function isTerminalError(err: unknown): err is TerminalError {
  return err instanceof TerminalError;
}
