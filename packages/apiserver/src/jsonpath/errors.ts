// The one error class of the JSONPath area (STYLE.md "Error-handling rules"). Messages are those
// of k8s.io/client-go/util/jsonpath, so `kubectl -o jsonpath`-style errors read the same.

/** Stable codes for everything the JSONPath parser and evaluator throw. */
export type JsonPathErrorCode =
  /** The template does not parse (unclosed action, bad array index, unterminated filter...). */
  | 'InvalidJsonPath'
  /** Evaluation failed (missing key without allowMissingKeys, index out of bounds, bad compare). */
  | 'JsonPathEvaluation';

export class JsonPathError extends Error {
  readonly code: JsonPathErrorCode;

  constructor(code: JsonPathErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'JsonPathError';
    this.code = code;
  }
}
