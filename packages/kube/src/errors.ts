// Every error of @agent-sandbox/kube extends KubeError (STYLE error rule 1). ApiError carries
// the server's Status unchanged, so callers key off `reason` and `code` exactly as kube does.
import type { Status, StatusReason } from '@agent-sandbox/kube-types';

export type KubeErrorCode =
  'ApiError' | 'InvalidArgument' | 'KubeConfig' | 'Network' | 'Timeout' | 'Aborted';

export class KubeError extends Error {
  readonly code: KubeErrorCode;
  constructor(message: string, options?: { cause?: unknown; code?: KubeErrorCode }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = options?.code ?? 'Network';
  }
}

/** An option or argument that cannot work; the message says how to fix it. */
export class InvalidArgumentError extends KubeError {
  constructor(message: string) {
    super(message, { code: 'InvalidArgument' });
  }
}

/** A kubeconfig or in-cluster configuration that cannot be used. */
export class KubeConfigError extends KubeError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, { ...options, code: 'KubeConfig' });
  }
}

/** The API server answered with a failure Status (or a body we turned into one). */
export class ApiError extends KubeError {
  readonly status: Status;
  constructor(context: string, status: Status) {
    super(`${context}: ${status.message ?? status.reason ?? `HTTP ${status.code}`}`, {
      code: 'ApiError',
    });
    this.status = status;
  }
  get statusCode(): number {
    return this.status.code;
  }
  get reason(): StatusReason | undefined {
    return this.status.reason;
  }
}

function isStatus(v: unknown): v is Status {
  return typeof v === 'object' && v !== null && (v as { kind?: unknown }).kind === 'Status';
}

/**
 * The one HTTP-status → error factory (STYLE error rule 3). A JSON Status body is kept as is;
 * anything else becomes the Status client-go would synthesise (plain-text `404 page not found`
 * → NotFound "the server could not find the requested resource", semantics §0).
 */
export function apiErrorFromResponse(context: string, httpStatus: number, body: string): ApiError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = undefined; // not JSON: synthesise below
  }
  if (isStatus(parsed))
    return new ApiError(context, { ...parsed, code: parsed.code || httpStatus });
  return new ApiError(context, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    code: httpStatus,
    reason: reasonForCode(httpStatus),
    message:
      httpStatus === 404
        ? 'the server could not find the requested resource'
        : body.trim() || `HTTP ${httpStatus}`,
  });
}

/** An in-stream watch ERROR event's Status (semantics §4.3) as an ApiError. */
export function apiErrorFromStatus(context: string, status: Status): ApiError {
  return new ApiError(context, status);
}

function reasonForCode(code: number): StatusReason {
  const table: Record<number, StatusReason> = {
    400: 'BadRequest',
    401: 'Unauthorized',
    403: 'Forbidden',
    404: 'NotFound',
    405: 'MethodNotAllowed',
    406: 'NotAcceptable',
    409: 'Conflict',
    410: 'Gone',
    413: 'RequestEntityTooLarge',
    415: 'UnsupportedMediaType',
    422: 'Invalid',
    429: 'TooManyRequests',
    500: 'InternalError',
    503: 'ServiceUnavailable',
    504: 'Timeout',
  };
  return table[code] ?? '';
}

function hasReason(err: unknown, reason: StatusReason, code: number): boolean {
  if (!(err instanceof ApiError)) return false;
  return err.status.reason === reason || (!err.status.reason && err.status.code === code);
}

export const isNotFound = (err: unknown): boolean => hasReason(err, 'NotFound', 404);
export const isAlreadyExists = (err: unknown): boolean => hasReason(err, 'AlreadyExists', 409);
export const isConflict = (err: unknown): boolean => hasReason(err, 'Conflict', 409);
export const isInvalid = (err: unknown): boolean => hasReason(err, 'Invalid', 422);
/** 410: `Expired` (resourceVersion/continue too old) or `Gone`; client-go treats both alike. */
export const isGone = (err: unknown): boolean =>
  err instanceof ApiError &&
  (err.status.code === 410 || err.status.reason === 'Gone' || err.status.reason === 'Expired');

/** Returns undefined for NotFound and rethrows anything else (controller-runtime IgnoreNotFound). */
export function ignoreNotFound(err: unknown): undefined {
  if (isNotFound(err)) return undefined;
  throw err;
}
