// One root error class for the package (STYLE.md "Error-handling rules"): callers narrow with
// `instanceof SchemaError` inside a process and with `code` across processes.

/** Stable codes for everything this package throws. */
export type SchemaErrorCode =
  /** The schema is not structural (apiextensions-apiserver `ValidateStructural`). */
  | 'NonStructuralSchema'
  /** A `pattern` cannot be compiled as a regular expression. */
  | 'InvalidPattern'
  /** An `x-kubernetes-validations` rule (or its messageExpression) does not compile. */
  | 'InvalidValidationRule'
  /** A `default` has unknown fields or does not validate against its own schema. */
  | 'InvalidDefault';

export class SchemaError extends Error {
  readonly code: SchemaErrorCode;
  /** Every schema path that failed, e.g. `properties[spec].properties[replicas].type`. */
  readonly paths: readonly string[];

  constructor(
    code: SchemaErrorCode,
    message: string,
    options?: { cause?: unknown; paths?: readonly string[] },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SchemaError';
    this.code = code;
    this.paths = options?.paths ?? [];
  }
}
