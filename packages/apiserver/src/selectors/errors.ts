// The selectors area's error class, under the package's root ApiServerError (STYLE.md error rules).
// `message` is the exact text kube-apiserver puts into the 400 Status for the same input, so the
// HTTP layer can return it unchanged: `badRequest(err.message)`.
import { ApiServerError } from '../errors.ts';

/** Stable codes for everything the selector parsers throw. */
export type SelectorErrorCode =
  /** `labelSelector` does not parse (k8s.io/apimachinery/pkg/labels Parse). */
  | 'InvalidLabelSelector'
  /** `fieldSelector` does not parse or has a bad escape (k8s.io/apimachinery/pkg/fields). */
  | 'InvalidFieldSelector'
  /** A field selector names a field the resource does not register (ConvertFieldLabel). */
  | 'UnsupportedFieldLabel'
  /** A metav1.LabelSelector object is invalid (metav1.LabelSelectorAsSelector). */
  | 'InvalidLabelSelectorObject';

export class SelectorError extends ApiServerError {
  declare readonly code: SelectorErrorCode;

  constructor(code: SelectorErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}
