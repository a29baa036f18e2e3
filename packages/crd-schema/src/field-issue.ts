// field.Error from k8s.io/apimachinery/pkg/util/validation/field, rendered the way
// kube-apiserver puts it into `details.causes[]` (semantics doc §7.3): `field` is the path and
// `message` is `(*field.Error).ErrorBody()`, i.e. everything after "<field>: ".
import type { CauseType } from '@agent-sandbox/kube-types';
import { goNumber, goQuote, goSyntax } from './go-format.ts';

/** One validation failure, shaped like a Status cause plus the raw value and detail. */
export interface FieldIssue {
  /** The cause reason (`details.causes[].reason`). */
  type: CauseType;
  /** Field path as kube prints it: `spec.containers[0].name`, `metadata.labels[app]`. */
  field: string;
  /** The value kube attaches (omitted where kube omits it, e.g. Required/Forbidden/TooLong). */
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

/** Types whose body never shows the value (ErrorBody's first switch arms). */
const VALUELESS = new Set<CauseType>([
  'FieldValueRequired',
  'FieldValueForbidden',
  'FieldValueTooLong',
  'InternalError',
]);

/**
 * ErrorBody's value rendering: nil as "null" (then quoted), int64/float64/bool with %v, strings
 * with %q, anything else with %#v.
 */
export function formatBadValue(value: unknown): string {
  if (value === null || value === undefined) return goQuote('null');
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number') return goNumber(value);
  if (typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  return goSyntax(value);
}

function issue(type: CauseType, field: string, value: unknown, detail: string): FieldIssue {
  let message = TYPE_TEXT[type];
  if (!VALUELESS.has(type)) message += `: ${formatBadValue(value)}`;
  if (detail !== '') message += `: ${detail}`;
  const out: FieldIssue = { type, field, message };
  if (!VALUELESS.has(type)) out.badValue = value ?? null;
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

/** field.TooLong (1.32): "may not be more than N bytes", value not shown. */
export function tooLong(field: string, value: unknown, maxLength: number): FieldIssue {
  const unit = maxLength === 1 ? 'byte' : 'bytes';
  const detail = maxLength >= 0 ? `may not be more than ${maxLength} ${unit}` : 'value is too long';
  const out = issue('FieldValueTooLong', field, undefined, detail);
  out.badValue = value;
  return out;
}

/**
 * field.TooMany: "Too many: <actual>: must have at most <max> items" ("item" for 1, the same
 * singular rule 1.32's TooLong applies to "byte").
 */
export function tooMany(field: string, actual: number, max: number): FieldIssue {
  const unit = max === 1 ? 'item' : 'items';
  const detail = max >= 0 ? `must have at most ${max} ${unit}` : 'has too many items';
  return issue('FieldValueTooMany', field, actual, detail);
}
