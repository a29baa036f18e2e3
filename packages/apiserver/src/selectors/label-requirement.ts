// The label-selector requirement model of k8s.io/apimachinery/pkg/labels: NewRequirement's
// validation, matching and String(), and the selectors built from requirements. The string
// grammar is in label-selector.ts, the lexer in label-lexer.ts.
import { formatBadValue } from '@agent-sandbox/crd-schema';
import { goJsonMarshal } from '../jsonpath/index.ts';
import { labelValueErrors, qualifiedNameErrors } from './label-validation.ts';

export type LabelOperator = 'in' | 'notin' | '=' | '==' | '!=' | 'exists' | '!' | 'gt' | 'lt';

/** One requirement: `key op values`. Values are sorted and unique for set operators. */
export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  readonly values: readonly string[];
}

/**
 * A parsed label selector. Contract: `matches` never throws; a selector is immutable; an
 * empty selector (`isEmpty()`) matches everything, including objects with no labels.
 */
export interface LabelSelector {
  matches(labels: Readonly<Record<string, string>> | undefined): boolean;
  /** True when the selector does not restrict anything (labels.Selector.Empty). */
  isEmpty(): boolean;
  /** kube's canonical rendering: requirements sorted by key, `a in (x,y)`, `!a`, `a!=b`. */
  toString(): string;
  /** The requirements, sorted by key (empty for Everything and for Nothing). */
  requirements(): readonly LabelRequirement[];
  /** The single value `key` must equal (`=`, `==`, or a one-value `in`), if any. */
  requiresExactMatch(key: string): string | undefined;
}

// ---------------------------------------------------------------------------------------------
// Requirements

/** Operators kube lists in "expected: ..." after a key (binaryOperators). */
export const BINARY_OPERATORS = ['in', 'notin', '=', '==', '!=', 'gt', 'lt'];
const ALL_OPERATORS = [...BINARY_OPERATORS, 'exists', '!'];

/** `field.Path` rendering: a nil path prints as `<nil>` (kube passes none from Parse). */
type PathText = string | null;

function child(path: PathText, name: string): string {
  return path === null || path === '' ? name : `${path}.${name}`;
}

/**
 * A whole values list as field.Error.ErrorBody shows it. The reference server (v1.36, ADR 0004)
 * json.Marshals non-scalar bad values since kubernetes/kubernetes#132314: a nil slice is `null`,
 * others `["x","y"]` (1.32 printed Go syntax, `[]string(nil)` / `[]string{"x", "y"}`).
 */
function goStringSlice(values: readonly string[] | null): string {
  return values === null ? 'null' : goJsonMarshal(values);
}

/** field.Error.Error() for an Invalid value. */
function invalidText(path: string, value: string, detail: string): string {
  return `${path}: Invalid value: ${value}: ${detail}`;
}

/** utilerrors.Aggregate.Error(): one message alone, several deduplicated inside [..., ...]. */
function aggregate(messages: string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? (unique[0] ?? '') : `[${unique.join(', ')}]`;
}

export function keyError(key: string, path: PathText): string | undefined {
  const errs = qualifiedNameErrors(key);
  if (errs.length === 0) return undefined;
  return invalidText(path ?? '<nil>', formatBadValue(key), errs.join('; '));
}

const INT64 = /^[+-]?\d+$/;
function isGoInt64(s: string): boolean {
  if (!INT64.test(s)) return false;
  const n = BigInt(s);
  return n >= -(2n ** 63n) && n < 2n ** 63n;
}

/**
 * labels.NewRequirement: validates and returns the requirement, or the aggregated error text.
 * `values` of `null` stands for a Go nil slice (rendered `null` in messages).
 */
export function newRequirement(
  key: string,
  operator: string,
  values: readonly string[] | null,
  path: PathText,
): { requirement: LabelRequirement } | { error: string } {
  const errs: string[] = [];
  const k = keyError(key, child(path, 'key'));
  if (k !== undefined) errs.push(k);
  const vals = values ?? [];
  const valuePath = child(path, 'values');
  switch (operator) {
    case 'in':
    case 'notin':
      if (vals.length === 0) {
        errs.push(
          invalidText(
            valuePath,
            goStringSlice(values),
            "for 'in', 'notin' operators, values set can't be empty",
          ),
        );
      }
      break;
    case '=':
    case '==':
    case '!=':
      if (vals.length !== 1) {
        errs.push(
          invalidText(
            valuePath,
            goStringSlice(values),
            'exact-match compatibility requires one single value',
          ),
        );
      }
      break;
    case 'exists':
    case '!':
      if (vals.length !== 0) {
        errs.push(
          invalidText(
            valuePath,
            goStringSlice(values),
            'values set must be empty for exists and does not exist',
          ),
        );
      }
      break;
    case 'gt':
    case 'lt':
      if (vals.length !== 1) {
        errs.push(
          invalidText(
            valuePath,
            goStringSlice(values),
            "for 'Gt', 'Lt' operators, exactly one value is required",
          ),
        );
      }
      vals.forEach((v, i) => {
        if (!isGoInt64(v)) {
          errs.push(
            invalidText(
              `${valuePath}[${i}]`,
              formatBadValue(v),
              "for 'Gt', 'Lt' operators, the value must be an integer",
            ),
          );
        }
      });
      break;
    default:
      errs.push(
        `${child(path, 'operator')}: Unsupported value: ${formatBadValue(operator)}: supported values: ${ALL_OPERATORS.map((o) => formatBadValue(o)).join(', ')}`,
      );
  }
  vals.forEach((v, i) => {
    const ve = labelValueErrors(v);
    if (ve.length > 0) {
      errs.push(invalidText(`${valuePath}[${i}][${key}]`, formatBadValue(v), ve.join('; ')));
    }
  });
  if (errs.length > 0) return { error: aggregate(errs) };
  return { requirement: { key, operator: operator as LabelOperator, values: [...vals] } };
}

function requirementMatches(
  r: LabelRequirement,
  labels: Readonly<Record<string, string>>,
): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  const value = has ? labels[r.key] : undefined;
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return has && r.values.includes(value ?? '');
    case 'notin':
    case '!=':
      return !has || !r.values.includes(value ?? '');
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (!has || r.values.length !== 1 || !isGoInt64(value ?? '')) return false;
      const left = BigInt(value ?? '0');
      const right = BigInt(r.values[0] ?? '0');
      return r.operator === 'gt' ? left > right : left < right;
    }
  }
}

/** Go sort.Strings order (byte order of UTF-8; equal to UTF-16 order outside astral planes). */
export function goStringLess(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function requirementString(r: LabelRequirement): string {
  let s = r.operator === '!' ? `!${r.key}` : r.key;
  switch (r.operator) {
    case 'exists':
    case '!':
      return s;
    case 'in':
      s += ' in ';
      break;
    case 'notin':
      s += ' notin ';
      break;
    case 'gt':
      s += '>';
      break;
    case 'lt':
      s += '<';
      break;
    default:
      s += r.operator;
  }
  const values =
    r.values.length === 1 ? (r.values[0] ?? '') : [...r.values].sort(goStringLess).join(',');
  return r.operator === 'in' || r.operator === 'notin' ? `${s}(${values})` : s + values;
}

export class RequirementSelector implements LabelSelector {
  readonly #requirements: readonly LabelRequirement[];

  constructor(requirements: readonly LabelRequirement[]) {
    // sort.Sort(ByKey(...)): kube sorts by key; a stable sort keeps equal keys in input order.
    this.#requirements = [...requirements].sort((a, b) => goStringLess(a.key, b.key));
  }

  matches(labels: Readonly<Record<string, string>> | undefined): boolean {
    const l = labels ?? {};
    return this.#requirements.every((r) => requirementMatches(r, l));
  }

  isEmpty(): boolean {
    return this.#requirements.length === 0;
  }

  toString(): string {
    return this.#requirements.map(requirementString).join(',');
  }

  requirements(): readonly LabelRequirement[] {
    return this.#requirements;
  }

  requiresExactMatch(key: string): string | undefined {
    const r = this.#requirements.find((x) => x.key === key);
    if (r === undefined) return undefined;
    if (
      (r.operator === '=' || r.operator === '==' || r.operator === 'in') &&
      r.values.length === 1
    ) {
      return r.values[0];
    }
    return undefined;
  }
}

class NothingSelector implements LabelSelector {
  matches(): boolean {
    return false;
  }
  isEmpty(): boolean {
    return false;
  }
  toString(): string {
    return '';
  }
  requirements(): readonly LabelRequirement[] {
    return [];
  }
  requiresExactMatch(): string | undefined {
    return undefined;
  }
}

/** labels.Everything(): matches every object. */
export function everythingLabelSelector(): LabelSelector {
  return new RequirementSelector([]);
}

/** labels.Nothing(): matches no object (what a nil metav1.LabelSelector converts to). */
export function nothingLabelSelector(): LabelSelector {
  return new NothingSelector();
}

/** labels.SelectorFromSet: `k=v` for every entry, not validated (as kube). Empty = Everything. */
export function labelSelectorFromSet(
  set: Readonly<Record<string, string>> | undefined,
): LabelSelector {
  return new RequirementSelector(
    Object.entries(set ?? {}).map(([key, value]) => ({
      key,
      operator: '=' as const,
      values: [value],
    })),
  );
}
