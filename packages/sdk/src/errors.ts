// Every error of @agent-sandbox/sdk extends SdkError (STYLE error rule 1) and carries a stable
// `code`: compare codes across versions and processes, use instanceof inside one. HTTP statuses
// (Kubernetes API, sandboxd, router) become errors in one factory, errorFromStatus().
import { ApiError, KubeError } from '@agent-sandbox/kube';

export type SdkErrorCode =
  | 'InvalidArgument'
  | 'Config'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Unauthenticated'
  | 'PermissionDenied'
  | 'RateLimited'
  | 'Timeout'
  | 'Aborted'
  | 'Connection'
  | 'Server'
  | 'TemplateNotFound'
  | 'WarmPoolNotFound'
  | 'ClaimFailed'
  | 'SandboxDeleted'
  | 'NotReady'
  | 'Unsupported';

export interface SdkErrorOptions {
  cause?: unknown;
  /** The HTTP status behind the error, when there was one. */
  status?: number;
}

export class SdkError extends Error {
  readonly code: SdkErrorCode;
  readonly status: number | undefined;
  constructor(code: SdkErrorCode, message: string, options: SdkErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.status = options.status;
  }
}

/** An argument or option that cannot work; the message names it and the fix. */
export class InvalidArgumentError extends SdkError {
  constructor(message: string, options?: SdkErrorOptions) {
    super('InvalidArgument', message, options);
  }
}

/** No usable connection configuration (kubeconfig, in-cluster, explicit options). */
export class ConfigError extends SdkError {
  constructor(message: string, options?: SdkErrorOptions) {
    super('Config', message, options);
  }
}

export class NotFoundError extends SdkError {
  constructor(message: string, options?: SdkErrorOptions) {
    super('NotFound', message, options);
  }
}

export class AlreadyExistsError extends SdkError {
  constructor(message: string, options?: SdkErrorOptions) {
    super('AlreadyExists', message, options);
  }
}

export class ConflictError extends SdkError {
  constructor(message: string, options?: SdkErrorOptions) {
    super('Conflict', message, options);
  }
}

export class AuthenticationError extends SdkError {
  constructor(message: string, options?: SdkErrorOptions) {
    super('Unauthenticated', message, options);
  }
}

export class PermissionDeniedError extends SdkError {
  constructor(message: string, options?: SdkErrorOptions) {
    super('PermissionDenied', message, options);
  }
}

export class RateLimitError extends SdkError {
  constructor(message: string, options?: SdkErrorOptions) {
    super('RateLimited', message, options);
  }
}

/** A deadline passed: a request, a readiness wait or a command's time limit. */
export class TimeoutError extends SdkError {
  constructor(message: string, options?: SdkErrorOptions) {
    super('Timeout', message, options);
  }
}

/** The caller's AbortSignal fired. */
export class AbortedError extends SdkError {
  constructor(message: string, options?: SdkErrorOptions) {
    super('Aborted', message, options);
  }
}

/** No answer: the server is down, unreachable, or the connection broke. */
export class ConnectionError extends SdkError {
  constructor(message: string, options?: SdkErrorOptions) {
    super('Connection', message, options);
  }
}

/** The server failed (5xx) or answered something we cannot read. */
export class ServerError extends SdkError {
  constructor(message: string, options?: SdkErrorOptions) {
    super('Server', message, options);
  }
}

export class TemplateNotFoundError extends SdkError {
  constructor(message: string, options?: SdkErrorOptions) {
    super('TemplateNotFound', message, options);
  }
}

export class WarmPoolNotFoundError extends SdkError {
  constructor(message: string, options?: SdkErrorOptions) {
    super('WarmPoolNotFound', message, options);
  }
}

/** The controller refused the claim for good; `reason` is the claim's Ready condition reason. */
export class ClaimFailedError extends SdkError {
  readonly reason: string;
  constructor(reason: string, message: string, options?: SdkErrorOptions) {
    super('ClaimFailed', message, options);
    this.reason = reason;
  }
}

/** The sandbox (or its claim) was deleted while we waited on it. */
export class SandboxDeletedError extends SdkError {
  constructor(message: string, options?: SdkErrorOptions) {
    super('SandboxDeleted', message, options);
  }
}

/** The sandbox exists but cannot serve the call yet (no Pod IP, suspended). */
export class NotReadyError extends SdkError {
  constructor(message: string, options?: SdkErrorOptions) {
    super('NotReady', message, options);
  }
}

/** The sandbox's daemon or this connection mode cannot do what was asked. */
export class UnsupportedError extends SdkError {
  constructor(message: string, options?: SdkErrorOptions) {
    super('Unsupported', message, options);
  }
}

/**
 * The one HTTP-status → error factory (STYLE error rule 3, openai-node's APIError.generate).
 * `message` already says what failed and why.
 */
export function errorFromStatus(status: number, message: string, cause?: unknown): SdkError {
  const o: SdkErrorOptions = { status, ...(cause === undefined ? {} : { cause }) };
  if (status === 400 || status === 422) return new InvalidArgumentError(message, o);
  if (status === 401) return new AuthenticationError(message, o);
  if (status === 403) return new PermissionDeniedError(message, o);
  if (status === 404) return new NotFoundError(message, o);
  if (status === 408 || status === 504) return new TimeoutError(message, o);
  if (status === 409) return new ConflictError(message, o);
  if (status === 429) return new RateLimitError(message, o);
  if (status === 413) return new InvalidArgumentError(message, o);
  if (status === 501) return new UnsupportedError(message, o);
  if (status === 502 || status === 503) return new ConnectionError(message, o);
  return new ServerError(message, o);
}

/** Maps what @agent-sandbox/kube throws into SdkErrors; anything else is returned unchanged. */
export function fromKubeError(err: unknown): unknown {
  if (err instanceof SdkError || !(err instanceof KubeError)) return err;
  if (err instanceof ApiError) {
    if (err.reason === 'AlreadyExists')
      return new AlreadyExistsError(err.message, { cause: err, status: err.statusCode });
    return errorFromStatus(err.statusCode, err.message, err);
  }
  switch (err.code) {
    case 'Timeout':
      return new TimeoutError(err.message, { cause: err });
    case 'Aborted':
      return new AbortedError(err.message, { cause: err });
    case 'KubeConfig':
      return new ConfigError(err.message, { cause: err });
    case 'InvalidArgument':
      return new InvalidArgumentError(err.message, { cause: err });
    default:
      return new ConnectionError(err.message, { cause: err });
  }
}
