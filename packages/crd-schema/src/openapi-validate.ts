// OpenAPI value validation of a custom resource, after kube-openapi pkg/validation/validate
// (schema.go, type.go, validator.go, object_validator.go, slice_validator.go, schema_props.go)
// as converted to field errors by apiextensions-apiserver pkg/apiserver/validation
// (kubeOpenAPIResultToFieldErrors). `name` is kube-openapi's path for a value: properties are
// joined with ".", items with "[i]", additionalProperties keys with "." (see paths.ts).
import { formatValidator } from './formats.ts';
import { goFloat, goQuote, isJSONInteger } from './go-format.ts';
import {
  invalid,
  notSupported,
  required,
  tooLong,
  tooMany,
  typeInvalid,
  type FieldIssue,
} from './field-issue.ts';
import { canonicalJSON, jsonEqual } from './json.ts';
import type { SchemaNode } from './node.ts';
import { NIL_PATH, openAPIFieldName } from './paths.ts';
import { isUnchanged, oldField, oldItems, type Old } from './ratchet.ts';

interface Result {
  issues: FieldIssue[];
  /** kube-openapi's MatchCount: validators applied, used to pick anyOf/oneOf's best failure. */
  checks: number;
}

type Kind = 'null' | 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object';

/** The JSON type kube-openapi infers for a decoded value (type.go schemaInfoForType). */
function kindOf(v: unknown): Kind {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'bigint') return 'integer';
  if (typeof v === 'number') return isJSONInteger(v) ? 'integer' : 'number';
  if (typeof v === 'boolean') return 'boolean';
  return Array.isArray(v) ? 'array' : 'object';
}

/** The swagger format of a decoded value: int64 for integers, float64 for other numbers. */
function formatOf(kind: Kind): string {
  return kind === 'integer' ? 'int64' : kind === 'number' ? 'float64' : '';
}

const field = openAPIFieldName;

/** errors.InvalidType: `%s in %s must be of type %s: %q` (the value is a type or format name). */
function typeError(name: string, typeName: string, value: string): FieldIssue {
  return typeInvalid(
    field(name),
    value,
    `${name} in body must be of type ${typeName}: ${goQuote(value)}`,
  );
}

/** type.go typeValidator.Validate. */
function validateType(s: SchemaNode, data: unknown, kind: Kind, name: string, r: Result): void {
  const types = s.openAPITypes;
  const format = s.props.format ?? '';
  if (types.length === 0 && format === '') return;
  r.checks++;
  if (kind === 'null') {
    if (types.length > 0 && !s.nullable) r.issues.push(typeError(name, types.join(','), 'null'));
    return;
  }
  const dataFormat = formatOf(kind);
  // swag.IsFloat64AJSONInteger: a whole float within ±2^53.
  const isFloatInt =
    kind === 'number' &&
    Number.isInteger(data) &&
    Math.abs(data as number) <= 2 ** 53 &&
    types.includes('integer');
  const isIntFloat = kind === 'integer' && types.includes('number');
  const stringOrSlice = kind === 'string' || kind === 'array';
  if (
    !stringOrSlice &&
    format !== '' &&
    !(types.includes(kind) || dataFormat === format || isFloatInt || isIntFloat)
  ) {
    r.issues.push(typeError(name, format, dataFormat));
    return;
  }
  if (!(types.includes('number') || types.includes('integer')) && format !== '' && stringOrSlice)
    return;
  if (!(types.includes(kind) || isFloatInt || isIntFloat)) {
    r.issues.push(typeError(name, types.join(','), kind));
  }
}

/** Composite errors are not *errors.Validation, so kube attaches them to the nil path. */
function composite(message: string): FieldIssue {
  return invalid(NIL_PATH, '', message);
}

function sub(s: SchemaNode, data: unknown, name: string, old: Old): Result {
  const r: Result = { issues: [], checks: 0 };
  validateNode(s, data, name, r, old);
  return r;
}

/** schema_props.go schemaPropsValidator.Validate: anyOf, oneOf, allOf, not. */
function validateSchemaProps(
  s: SchemaNode,
  data: unknown,
  name: string,
  r: Result,
  old: Old,
): void {
  if (s.anyOf.length > 0) {
    r.checks++;
    let best: Result | undefined;
    let succeeded = false;
    for (const alt of s.anyOf) {
      const res = sub(alt, data, name, old);
      if (res.issues.length === 0) {
        succeeded = true;
        best = undefined;
        break;
      }
      if (best === undefined || res.checks > best.checks) best = res;
    }
    if (!succeeded)
      r.issues.push(composite(`${goQuote(name)} must validate at least one schema (anyOf)`));
    if (best !== undefined) r.issues.push(...best.issues);
  }
  if (s.oneOf.length > 0) {
    r.checks++;
    let best: Result | undefined;
    let validated = 0;
    for (const alt of s.oneOf) {
      const res = sub(alt, data, name, old);
      if (res.issues.length === 0) {
        validated++;
        best = undefined;
        continue;
      }
      if (validated === 0 && (best === undefined || res.checks > best.checks)) best = res;
    }
    if (validated !== 1) {
      const more = validated === 0 ? 'Found none valid' : `Found ${validated} valid alternatives`;
      r.issues.push(
        composite(`${goQuote(name)} must validate one and only one schema (oneOf). ${more}`),
      );
      if (best !== undefined) r.issues.push(...best.issues);
    }
  }
  if (s.allOf.length > 0) {
    r.checks++;
    let validated = 0;
    for (const alt of s.allOf) {
      const res = sub(alt, data, name, old);
      if (res.issues.length === 0) validated++;
      r.issues.push(...res.issues);
    }
    if (validated !== s.allOf.length) {
      const more = validated === 0 ? '. None validated' : '';
      r.issues.push(composite(`${goQuote(name)} must validate all the schemas (allOf)${more}`));
    }
  }
  if (s.not !== undefined) {
    r.checks++;
    if (sub(s.not, data, name, old).issues.length === 0) {
      r.issues.push(composite(`${goQuote(name)} must not validate the schema (not)`));
    }
  }
}

/** validator.go stringValidator (first failure only) and formatValidator. */
function validateString(s: SchemaNode, data: string, name: string, r: Result): void {
  const { maxLength, minLength, pattern } = s.props;
  if (maxLength !== undefined || minLength !== undefined || s.pattern !== undefined) {
    r.checks++;
    const runes = maxLength !== undefined || minLength !== undefined ? [...data].length : 0;
    if (maxLength !== undefined && runes > maxLength) {
      r.issues.push(tooLong(field(name), data, maxLength));
    } else if (minLength !== undefined && runes < minLength) {
      r.issues.push(
        invalid(field(name), data, `${name} in body should be at least ${minLength} chars long`),
      );
    } else if (s.pattern !== undefined && !s.pattern.test(data)) {
      r.issues.push(invalid(field(name), data, `${name} in body should match '${pattern ?? ''}'`));
    }
  }
  const format = s.props.format;
  const check = format === undefined ? undefined : formatValidator(format);
  if (check !== undefined) {
    r.checks++;
    if (!check(data))
      r.issues.push(
        typeInvalid(
          field(name),
          data,
          `${name} in body must be of type ${format}: ${goQuote(data)}`,
        ),
      );
  }
}

/**
 * validator.go numberValidator: the format's range, then multipleOf, minimum and maximum (its
 * Merge order). values.go's *NativeType checks compare an int64 value against int64(limit), so
 * limits print as integers for integer data and with %v (Go float formatting) otherwise.
 */
function validateNumber(
  s: SchemaNode,
  raw: number | bigint,
  kind: Kind,
  name: string,
  r: Result,
): void {
  const range = checkIntegerRange(s, raw, name);
  if (range !== undefined) r.issues.push(range);
  const data = Number(raw);
  const { multipleOf, maximum, minimum, exclusiveMaximum, exclusiveMinimum } = s.props;
  if (multipleOf === undefined && maximum === undefined && minimum === undefined) return;
  r.checks++;
  const asInt = kind === 'integer';
  const limit = (n: number): number => (asInt ? Math.trunc(n) : n);
  const show = (n: number): string => (asInt ? String(Math.trunc(n)) : goFloat(n));
  if (multipleOf !== undefined) {
    const intFactor = asInt && Number.isInteger(multipleOf);
    const ok = intFactor
      ? data % multipleOf === 0
      : isFloat64AJSONInteger(floatMultiple(data, multipleOf));
    if (!ok) {
      const shown = intFactor ? String(multipleOf) : goFloat(multipleOf);
      r.issues.push(invalid(field(name), data, `${name} in body should be a multiple of ${shown}`));
    }
  }
  if (minimum !== undefined) {
    const min = limit(minimum);
    if (exclusiveMinimum ? data <= min : data < min) {
      const rel = exclusiveMinimum ? 'greater than' : 'greater than or equal to';
      r.issues.push(
        invalid(field(name), data, `${name} in body should be ${rel} ${show(minimum)}`),
      );
    }
  }
  if (maximum !== undefined) {
    const max = limit(maximum);
    if (exclusiveMaximum ? data >= max : data > max) {
      const rel = exclusiveMaximum ? 'less than' : 'less than or equal to';
      r.issues.push(
        invalid(field(name), data, `${name} in body should be ${rel} ${show(maximum)}`),
      );
    }
  }
}

/** The integer formats' ranges (swag ConvertInt32/ConvertUint32/ConvertUint64/ConvertInt64). */
const INTEGER_RANGES: Record<string, readonly [bigint, bigint]> = {
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  uint32: [0n, 2n ** 32n - 1n],
  uint64: [0n, 2n ** 64n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
};

/**
 * validator.go numberValidator's first check, IsValueValidAgainstRange(val, type, format,
 * "Checked", path): an integer must fit its format (int32, uint32, uint64; int64 for any other
 * format). It is a plain error, not an *errors.Validation, so apiextensions attaches it to the
 * nil path with an empty value: `<nil>: Invalid value: "": Checked value must be of type integer
 * with format int32 in spec.x` — as the v1.36 server reports an out-of-range `format: int32`
 * field (the kube-openapi sources we could read still pass an empty type and format to the
 * schema's numberValidator, so this follows the reference server). Not blocking, so CEL still
 * runs. Only integral values are checked: what 1.36 adds for fractional values of integer
 * fields, and the "Maximum boundary"/"Minimum boundary"/"MultipleOf" checks of the schema's own
 * limits, are not reproduced.
 */
function checkIntegerRange(
  s: SchemaNode,
  raw: number | bigint,
  name: string,
): FieldIssue | undefined {
  if (!s.openAPITypes.includes('integer')) return undefined;
  if (typeof raw === 'number' && !(Number.isInteger(raw) && Math.abs(raw) <= 2 ** 63)) {
    return undefined;
  }
  const format = s.props.format ?? '';
  const [min, max] = INTEGER_RANGES[format] ?? (INTEGER_RANGES['int64'] as [bigint, bigint]);
  // A JS number of 2^63 is also what int64's maximum 2^63-1 decodes to: give it the benefit.
  const v = typeof raw === 'bigint' ? raw : raw === 2 ** 63 ? 2n ** 63n - 1n : BigInt(raw);
  if (v >= min && v <= max) return undefined;
  const shape = format !== '' ? `with format ${format}` : '(default format)';
  return composite(`Checked value must be of type integer ${shape} in ${name}`);
}

/** values.go MultipleOf: divide, or multiply by the inverse for factors below 1. */
function floatMultiple(data: number, factor: number): number {
  return factor < 1 ? (1 / factor) * data : data / factor;
}

/** swag.IsFloat64AJSONInteger: whole within a relative error of 1e-9, and within ±2^53. */
function isFloat64AJSONInteger(f: number): boolean {
  if (!Number.isFinite(f) || Math.abs(f) > 2 ** 53) return false;
  const g = Math.trunc(f);
  if (f === g) return true;
  const diff = Math.abs(f - g);
  if (g === 0) return false;
  return diff / (Math.abs(f) + Math.abs(g)) < 1e-9;
}

/** slice_validator.go: items first, then minItems, maxItems, uniqueItems. */
function validateSlice(s: SchemaNode, data: unknown[], name: string, r: Result, old: Old): void {
  r.checks++;
  if (s.items !== undefined) {
    const items = s.items;
    const oldOf = oldItems(s, old);
    data.forEach((v, i) => validateNode(items, v, `${name}[${i}]`, r, oldOf(v)));
  }
  const { minItems, maxItems, uniqueItems } = s.props;
  if (minItems !== undefined && data.length < minItems) {
    r.issues.push(
      invalid(field(name), data.length, `${name} in body should have at least ${minItems} items`),
    );
  }
  if (maxItems !== undefined && data.length > maxItems) {
    r.issues.push(tooMany(field(name), data.length, maxItems));
  }
  if (uniqueItems === true && new Set(data.map(canonicalJSON)).size !== data.length) {
    r.issues.push(invalid(field(name), '', `${name} in body shouldn't contain duplicates`));
  }
}

/** validator.go basicCommonValidator: enum; allowed values printed as strings or JSON. */
function validateEnum(s: SchemaNode, data: unknown, name: string, r: Result): void {
  const values = s.props.enum;
  if (values === undefined || values.length === 0) return;
  r.checks++;
  if (data !== null && data !== undefined && values.some((v) => jsonEqual(v, data))) return;
  const shown = values.map((v) => (typeof v === 'string' ? v : canonicalJSON(v)));
  r.issues.push(notSupported(field(name), data ?? null, shown));
}

/** object_validator.go: min/maxProperties (fatal), additionalProperties, properties, required. */
function validateObject(
  s: SchemaNode,
  data: Record<string, unknown>,
  name: string,
  r: Result,
  old: Old,
): void {
  r.checks++;
  const size = Object.keys(data).length;
  const { minProperties, maxProperties } = s.props;
  if (minProperties !== undefined && size < minProperties) {
    r.issues.push(
      invalid(
        field(name),
        size,
        `${name} in body should have at least ${minProperties} properties`,
      ),
    );
    return;
  }
  if (maxProperties !== undefined && size > maxProperties) {
    r.issues.push(tooMany(field(name), size, maxProperties));
    return;
  }
  if (s.additionalProperties !== undefined) {
    for (const [k, v] of Object.entries(data)) {
      if (s.properties?.has(k) !== true)
        validateNode(s.additionalProperties, v, `${name}.${k}`, r, oldField(old, k));
    }
  }
  for (const [k, prop] of s.properties ?? []) {
    if (Object.hasOwn(data, k)) {
      validateNode(prop, data[k], name === '' ? k : `${name}.${k}`, r, oldField(old, k));
    }
  }
  for (const k of s.props.required ?? []) {
    if (!Object.hasOwn(data, k)) r.issues.push(required(field(`${name}.${k}`)));
  }
}

/**
 * schema.go SchemaValidator.Validate: the validators in kube-openapi's fixed order. On update
 * a value equal to its correlated old value is not validated at all (ratcheting.go: errors of
 * unchanged values are dropped, which for a whole subtree is the same as not looking).
 */
function validateNode(s: SchemaNode, data: unknown, name: string, r: Result, old: Old): void {
  if (isUnchanged(old, data)) return;
  const kind = kindOf(data);
  if (kind === 'null') {
    validateType(s, null, kind, name, r);
    validateEnum(s, null, name, r);
    return;
  }
  validateType(s, data, kind, name, r);
  validateSchemaProps(s, data, name, r, old);
  if (kind === 'string') validateString(s, data as string, name, r);
  if (kind === 'integer' || kind === 'number') {
    validateNumber(s, data as number | bigint, kind, name, r);
  }
  if (kind === 'array') validateSlice(s, data as unknown[], name, r, old);
  validateEnum(s, data, name, r);
  if (kind === 'object') validateObject(s, data as Record<string, unknown>, name, r, old);
}

/**
 * OpenAPI-validate a whole object against its root schema node; `old` (on update) enables
 * ratcheting.
 */
export function validateOpenAPI(root: SchemaNode, obj: unknown, old: Old): FieldIssue[] {
  const r: Result = { issues: [], checks: 0 };
  validateNode(root, obj, '', r, old);
  return r.issues;
}

/** For `default` checks at compile time: validate a value as if it sat at `name`. */
export function validateValueAt(node: SchemaNode, value: unknown, name: string): FieldIssue[] {
  const r: Result = { issues: [], checks: 0 };
  validateNode(node, value, name, r, undefined);
  return r.issues;
}
