// field.Error from k8s.io/apimachinery/pkg/util/validation/field, rendered the way
// kube-apiserver puts it into `details.causes[]` (semantics doc §7.3): `field` is the path and
// `message` is `(*field.Error).ErrorBody()`, i.e. everything after "<field>: ". The rendering is
// that of the kube-apiserver we are compared with (v1.36), whose ErrorBody was rewritten by
// kubernetes/kubernetes#132314 (k8s.io/apimachinery/pkg/util/validation/field/errors.go), so
// it differs from kube-apiserver 1.32's messages (semantics §7.3 lists those) in the value: JSON
// instead of Go syntax, nil as `null`.
import type { CauseType } from '@agent-sandbox/kube-types';
import { goJSON, goNumber, goQuote } from './go-format.ts';

/**
 * field.OmitValueType{}: a bad value that ErrorBody leaves out, printing only the type text
 * (`Invalid value: <detail>`), e.g. for CEL rule failures on objects and lists.
 */
export const OMIT_VALUE: unique symbol = Symbol('field.OmitValueType');

/** One validation failure, shaped like a Status cause plus the raw value and detail. */
export interface FieldIssue {
  /** The cause reason (`details.causes[].reason`). */
  type: CauseType;
  /** Field path as kube prints it: `spec.containers[0].name`, `metadata.labels[app]`. */
  field: string;
  /**
   * The value kube attaches (absent where kube omits it: Required/Forbidden/TooLong and
   * OMIT_VALUE).
   */
  badValue?: unknown;
  detail?: string;
  /** The cause message after "<field>: ", e.g. `Invalid value: -1: spec.x in body should be ...`. */
  message: string;
}

/** "<field>: <message>", the form kubectl shows inside `The X "y" is invalid: [...]`. */
export function formatFieldIssue(i: FieldIssue): string {
  return `${i.field}: ${i.message}`;
}

/** field.ErrorType.String(). */
const TYPE_TEXT: Record<CauseType, string> = {
  FieldValueNotFound: 'Not found',
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  InternalError: 'Internal error',
  FieldValueTypeInvalid: 'Invalid value',
};

/** Types whose body never shows the value (ErrorBody's first switch arm). */
const VALUELESS = new Set<CauseType>([
  'FieldValueRequired',
  'FieldValueForbidden',
  'FieldValueTooLong',
  'InternalError',
]);

/**
 * ErrorBody's value rendering (1.36): int64/int32/float64/float32/bool with %v, strings with %q,
 * everything else json.Marshal'ed — nil as bare `null`, lists and maps as compact JSON with
 * sorted keys (`{"name":"a"}`, `["Yes"]`), other integer types such as uint64 as plain digits.
 */
export function formatBadValue(value: unknown): string {
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number') return goNumber(value);
  if (typeof value === 'boolean') return String(value);
  return goJSON(value);
}

function issue(type: CauseType, field: string, value: unknown, detail: string): FieldIssue {
  const shown = !VALUELESS.has(type) && value !== OMIT_VALUE;
  let message = TYPE_TEXT[type];
  if (shown) message += `: ${formatBadValue(value)}`;
  if (detail !== '') message += `: ${detail}`;
  const out: FieldIssue = { type, field, message };
  if (shown) out.badValue = value ?? null;
  if (detail !== '') out.detail = detail;
  return out;
}

export function required(field: string, detail = ''): FieldIssue {
  return issue('FieldValueRequired', field, undefined, detail);
}

export function invalid(field: string, value: unknown, detail: string): FieldIssue {
  return issue('FieldValueInvalid', field, value, detail);
}

export function typeInvalid(field: string, value: unknown, detail: string): FieldIssue {
  return issue('FieldValueTypeInvalid', field, value, detail);
}

export function forbidden(field: string, detail: string): FieldIssue {
  return issue('FieldValueForbidden', field, undefined, detail);
}

export function duplicate(field: string, value: unknown): FieldIssue {
  return issue('FieldValueDuplicate', field, value, '');
}

/** field.NotSupported: each valid value is strconv.Quote(fmt.Sprint(v)). */
export function notSupported(field: string, value: unknown, validValues: string[]): FieldIssue {
  const detail =
    validValues.length > 0 ? `supported values: ${validValues.map(goQuote).join(', ')}` : '';
  return issue('FieldValueNotSupported', field, value, detail);
}

/** field.TooLong: "may not be more than N bytes" ("byte" for 1), value not shown. */
export function tooLong(field: string, value: unknown, maxLength: number): FieldIssue {
  const unit = maxLength === 1 ? 'byte' : 'bytes';
  const detail = maxLength >= 0 ? `may not be more than ${maxLength} ${unit}` : 'value is too long';
  const out = issue('FieldValueTooLong', field, undefined, detail);
  out.badValue = value;
  return out;
}

/**
 * field.TooMany: "Too many: <actual>: must have at most <max> items" ("item" for 1, the same
 * singular rule TooLong applies to "byte").
 */
export function tooMany(field: string, actual: number, max: number): FieldIssue {
  const unit = max === 1 ? 'item' : 'items';
  const detail = max >= 0 ? `must have at most ${max} ${unit}` : 'has too many items';
  return issue('FieldValueTooMany', field, actual, detail);
}
