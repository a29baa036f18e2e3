// The Table area's error class, under the package's root ApiServerError (STYLE.md error rules).
// `message` is what kube-apiserver returns in the 400 Status for the same request.
import { ApiServerError } from '../errors.ts';

/** Stable codes for everything buildTable throws. */
export type TableErrorCode =
  /** `includeObject` is not `None`, `Metadata`, `Object` or empty. */
  'InvalidIncludeObject';

export class TableError extends ApiServerError {
  declare readonly code: TableErrorCode;

  constructor(code: TableErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}
