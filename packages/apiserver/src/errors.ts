// The one error root of @agent-sandbox/apiserver (STYLE error rule 1) and the API errors as
// kube-apiserver returns them: a metav1.Status with reason, code and details (semantics doc §7).
// Every area's error class (storage, protobuf, patch, selectors, tables, JSONPath, credentials,
// tokens) extends ApiServerError with its own stable `code`; handlers throw them as they are and
// the request path's one error boundary (http/error-boundary.ts) maps each to a Status, so
// clients see exactly one shape.
import type { Status, StatusCause, StatusDetails, StatusReason } from '@agent-sandbox/kube-types';

export class ApiServerError extends Error {
  /** Stable across releases: compare `code` (with `instanceof` for the area), never the message. */
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
  }
}

/** A failure that already is the Status kube-apiserver answers with; `code` is its reason. */
export class ApiError extends ApiServerError {
  declare readonly code: StatusReason;
  readonly status: Status;
  constructor(status: Status) {
    super(status.reason ?? '', status.message ?? status.reason ?? 'error');
    this.status = status;
  }
}

/** The names a message uses for one resource: `<plural>.<group>` and `<Kind>.<group>`. */
export interface QualifiedNames {
  group: string;
  plural: string;
  kind: string;
}

function qualified(group: string, name: string): string {
  return group === '' ? name : `${name}.${group}`;
}

function statusOf(
  code: number,
  reason: StatusReason,
  message: string,
  details?: StatusDetails,
): Status {
  const status: Status = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    code,
  };
  if (reason !== '') status.reason = reason;
  if (details && Object.keys(details).length > 0) status.details = details;
  return status;
}

/** Status details naming one object: `{name, group, kind}`. */
export function detailsFor(
  r: Pick<QualifiedNames, 'group'>,
  name: string | undefined,
  kind: string,
): StatusDetails {
  const d: StatusDetails = {};
  if (name) d.name = name;
  if (r.group) d.group = r.group;
  d.kind = kind;
  return d;
}

/** Any failure Status as an ApiError, for the errors without a named constructor here. */
export function statusError(
  code: number,
  reason: StatusReason,
  message: string,
  details?: StatusDetails,
): ApiError {
  return new ApiError(statusOf(code, reason, message, details));
}

export function notFound(r: QualifiedNames, name: string): ApiError {
  return new ApiError(
    statusOf(
      404,
      'NotFound',
      `${qualified(r.group, r.plural)} "${name}" not found`,
      detailsFor(r, name, r.plural),
    ),
  );
}

export function alreadyExists(r: QualifiedNames, name: string, beingDeleted = false): ApiError {
  const prefix = beingDeleted ? 'object is being deleted: ' : '';
  return new ApiError(
    statusOf(
      409,
      'AlreadyExists',
      `${prefix}${qualified(r.group, r.plural)} "${name}" already exists`,
      detailsFor(r, name, r.plural),
    ),
  );
}

export function conflict(
  r: QualifiedNames,
  name: string,
  why = 'the object has been modified; please apply your changes to the latest version and try again',
): ApiError {
  return new ApiError(
    statusOf(
      409,
      'Conflict',
      `Operation cannot be fulfilled on ${qualified(r.group, r.plural)} "${name}": ${why}`,
      detailsFor(r, name, r.plural),
    ),
  );
}

/** 422 Invalid: `<Kind>.<group> "<name>" is invalid: <causes>`. */
export function invalid(
  r: QualifiedNames,
  name: string,
  causes: { field: string; message: string; type: string }[],
): ApiError {
  const unique = [...new Set(causes.map((c) => `${c.field}: ${c.message}`))];
  const body = unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`;
  const statusCauses: StatusCause[] = causes.map((c) => ({
    reason: c.type,
    message: c.message,
    field: c.field,
  }));
  return new ApiError(
    statusOf(422, 'Invalid', `${qualified(r.group, r.kind)} "${name}" is invalid: ${body}`, {
      ...detailsFor(r, name, r.kind),
      causes: statusCauses,
    }),
  );
}

export function badRequest(message: string): ApiError {
  return new ApiError(statusOf(400, 'BadRequest', message));
}

export function methodNotAllowed(verb: string, r: QualifiedNames): ApiError {
  return new ApiError(
    statusOf(
      405,
      'MethodNotAllowed',
      `${verb} is not supported on resources of kind "${qualified(r.group, r.plural)}"`,
      detailsFor(r, undefined, r.plural),
    ),
  );
}

/** 404 for a path under a served group that names no route (kube: `details: {}`). */
export function routeNotFound(): ApiError {
  return new ApiError({
    ...statusOf(404, 'NotFound', 'the server could not find the requested resource'),
    details: {},
  });
}

/** 405 for an HTTP method kube routes nowhere on a known path (TRACE, OPTIONS, HEAD...). */
export function unroutableMethod(): ApiError {
  return new ApiError({
    ...statusOf(
      405,
      'MethodNotAllowed',
      'the server does not allow this method on the requested resource',
    ),
    details: {},
  });
}

export function unsupportedMediaType(accepted: readonly string[]): ApiError {
  return new ApiError(
    statusOf(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
    ),
  );
}

export function expired(message: string): ApiError {
  return new ApiError(statusOf(410, 'Expired', message));
}

export function forbidden(message: string): ApiError {
  return new ApiError(statusOf(403, 'Forbidden', message));
}

export function unauthorized(): ApiError {
  return new ApiError(statusOf(401, 'Unauthorized', 'Unauthorized'));
}

export function timeout(message: string): ApiError {
  return new ApiError(statusOf(504, 'Timeout', `Timeout: ${message}`));
}

/** 504 for a resourceVersion past the store's current one (kube's ResourceVersionTooLarge). */
export function tooLargeResourceVersion(requested: string, current: number): ApiError {
  const status = timeout(`Too large resource version: ${requested}, current: ${current}`).status;
  status.details = {
    causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
  };
  return new ApiError(status);
}

export function internalError(err: unknown): ApiError {
  const text = err instanceof Error ? err.message : String(err);
  return new ApiError(
    statusOf(500, 'InternalError', `Internal error occurred: ${text}`, {
      causes: [{ message: text }],
    }),
  );
}

/** A 500 with no reason and the raw message (what the real server sends for untyped failures). */
export function plainInternal(message: string): ApiError {
  return new ApiError(statusOf(500, '', message));
}
