// The patch engines' error class, under the package's root ApiServerError (STYLE.md error rules).
// Each error carries exactly what kube-apiserver puts in the Status it answers with, so the HTTP
// layer maps it once (patchErrorToStatus) and never re-derives codes or messages.
import { ApiServerError } from '../errors.ts';
import type { Status, StatusCause, StatusReason } from '@agent-sandbox/kube-types';

/** Stable codes for everything the patch package throws. */
export type PatchErrorCode =
  /** The patch body is not the shape its media type requires (400 BadRequest). */
  | 'MalformedPatch'
  /** A JSON patch has more than 10000 operations (413 RequestEntityTooLarge). */
  | 'TooManyOperations'
  /** A JSON patch operation failed: missing path, failed `test`, bad op (422, generic message). */
  | 'JsonPatchFailed'
  /** Strategic merge patch on a type without patch metadata, i.e. a custom resource (415). */
  | 'StrategicMergePatchUnsupported'
  /**
   * A strategic merge patch the real server rejects: bad directive, missing merge key, type
   * mismatch. 400 for the documented format errors, otherwise 500 with no reason and the raw
   * message (kube-apiserver passes those errors through untyped).
   */
  | 'StrategicMergePatchFailed'
  /** Server-side apply found fields owned by other managers with different values (409). */
  | 'ApplyConflict'
  /** The applied configuration is rejected before merging (400, or 500 for schema mismatches). */
  | 'InvalidApply';

export interface PatchErrorOptions {
  cause?: unknown;
  /** HTTP status code the real server answers with. */
  statusCode: number;
  /** Status.reason; omitted from the Status when empty (untyped server errors). */
  reason: StatusReason;
  causes?: StatusCause[];
  /** Emit `details: {}` even without causes (kube's generic server responses do). */
  emptyDetails?: boolean;
}

export class PatchError extends ApiServerError {
  declare readonly code: PatchErrorCode;
  readonly statusCode: number;
  readonly reason: StatusReason;
  readonly causes: readonly StatusCause[];
  readonly emptyDetails: boolean;

  constructor(code: PatchErrorCode, message: string, options: PatchErrorOptions) {
    super(code, message, options);
    this.statusCode = options.statusCode;
    this.reason = options.reason;
    this.causes = options.causes ?? [];
    this.emptyDetails = options.emptyDetails ?? false;
  }
}

/** `errors.NewGenericServerResponse(422, …)`: kube hides the operation error behind this text. */
export const GENERIC_422_MESSAGE = 'the server rejected our request due to an error in our request';

export function badRequest(message: string, cause?: unknown): PatchError {
  return new PatchError('MalformedPatch', message, {
    statusCode: 400,
    reason: 'BadRequest',
    cause,
  });
}

/** Turn a patch error into the metav1.Status the real server would send. */
export function patchErrorToStatus(err: PatchError): Status {
  const status: Status = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: err.message,
    code: err.statusCode,
  };
  if (err.reason !== '') status.reason = err.reason;
  if (err.causes.length > 0) status.details = { causes: [...err.causes] };
  else if (err.emptyDetails) status.details = {};
  return status;
}
