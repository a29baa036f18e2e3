// The one error class of the Table area (STYLE.md "Error-handling rules"). `message` is what
// kube-apiserver returns in the 400 Status for the same request.

/** Stable codes for everything buildTable throws. */
export type TableErrorCode =
  /** `includeObject` is not `None`, `Metadata`, `Object` or empty. */
  'InvalidIncludeObject';

export class TableError extends Error {
  readonly code: TableErrorCode;

  constructor(code: TableErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'TableError';
    this.code = code;
  }
}
