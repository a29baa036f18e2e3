// The JSONPath area's error class, under the package's root ApiServerError (STYLE.md error
// rules). Messages are those of k8s.io/client-go/util/jsonpath, so `kubectl -o jsonpath`-style
// errors read the same.
import { ApiServerError } from '../errors.ts';

/** Stable codes for everything the JSONPath parser and evaluator throw. */
export type JsonPathErrorCode =
  /** The template does not parse (unclosed action, bad array index, unterminated filter...). */
  | 'InvalidJsonPath'
  /** Evaluation failed (missing key without allowMissingKeys, index out of bounds, bad compare). */
  | 'JsonPathEvaluation';

export class JsonPathError extends ApiServerError {
  declare readonly code: JsonPathErrorCode;

  constructor(code: JsonPathErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}
