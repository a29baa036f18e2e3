// Label selectors as k8s.io/apimachinery/pkg/labels implements them: the string grammar of
// `?labelSelector=` (Parse), the requirement validation of NewRequirement, matching, and String().
// Error messages are kube's, byte for byte, because the API server returns them in 400 Status
// bodies (`unable to parse requirement: ...`, `found 'x', expected: ...`).
import { formatBadValue } from '@agent-sandbox/crd-schema';
import { goJsonMarshal } from '../jsonpath/index.ts';
import { SelectorError } from './errors.ts';
import { labelValueErrors, qualifiedNameErrors } from './label-validation.ts';

/** selection.Operator values, spelled as kube spells them. */
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
const BINARY_OPERATORS = ['in', 'notin', '=', '==', '!=', 'gt', 'lt'];
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

function keyError(key: string, path: PathText): string | undefined {
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
function newRequirement(
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
function goStringLess(a: string, b: string): number {
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

class RequirementSelector implements LabelSelector {
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

// ---------------------------------------------------------------------------------------------
// Lexer: byte-oriented like kube's; a NUL character ends the input as Go's read() does.

type Token =
  | 'error'
  | 'eos'
  | ')'
  | ','
  | '!'
  | '=='
  | '='
  | '>'
  | 'identifier'
  | 'in'
  | '<'
  | '!='
  | 'notin'
  | '(';

const STRING_TO_TOKEN: Readonly<Record<string, Token>> = {
  ')': ')',
  ',': ',',
  '!': '!',
  '==': '==',
  '=': '=',
  '>': '>',
  in: 'in',
  '<': '<',
  '!=': '!=',
  notin: 'notin',
  '(': '(',
};

function tokenOf(s: string): Token | undefined {
  return Object.prototype.hasOwnProperty.call(STRING_TO_TOKEN, s) ? STRING_TO_TOKEN[s] : undefined;
}

function isWhitespace(ch: string): boolean {
  return ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
}

function isSpecialSymbol(ch: string): boolean {
  return '=!(),><'.includes(ch) && ch !== '';
}

interface ScannedItem {
  tok: Token;
  literal: string;
}

class Lexer {
  #pos = 0;
  constructor(private readonly s: string) {}

  /** '' stands for Go's 0 byte: end of input, or an actual NUL in the input. */
  #read(): string {
    if (this.#pos < this.s.length) {
      const ch = this.s[this.#pos] ?? '';
      this.#pos++;
      return ch === '\0' ? '' : ch;
    }
    return '';
  }

  #unread(): void {
    this.#pos--;
  }

  #scanIdOrKeyword(): ScannedItem {
    let buffer = '';
    for (;;) {
      const ch = this.#read();
      if (ch === '') break;
      if (isSpecialSymbol(ch) || isWhitespace(ch)) {
        this.#unread();
        break;
      }
      buffer += ch;
    }
    const tok = tokenOf(buffer);
    return tok !== undefined ? { tok, literal: buffer } : { tok: 'identifier', literal: buffer };
  }

  #scanSpecialSymbol(): ScannedItem {
    let last: ScannedItem | undefined;
    let buffer = '';
    for (;;) {
      const ch = this.#read();
      if (ch === '') break;
      if (isSpecialSymbol(ch)) {
        buffer += ch;
        const tok = tokenOf(buffer);
        if (tok !== undefined) {
          last = { tok, literal: buffer };
        } else if (last !== undefined) {
          this.#unread();
          break;
        }
      } else {
        this.#unread();
        break;
      }
    }
    return last ?? { tok: 'error', literal: `error expected: keyword found '${buffer}'` };
  }

  lex(): ScannedItem {
    let ch = this.#read();
    while (isWhitespace(ch)) ch = this.#read();
    if (ch === '') return { tok: 'eos', literal: '' };
    this.#unread();
    return isSpecialSymbol(ch) ? this.#scanSpecialSymbol() : this.#scanIdOrKeyword();
  }
}

// ---------------------------------------------------------------------------------------------
// Parser

type Context = 'keyAndOperator' | 'values';

class ParseError extends Error {}

class Parser {
  readonly #items: ScannedItem[] = [];
  #position = 0;

  constructor(input: string) {
    const lexer = new Lexer(input);
    for (;;) {
      const item = lexer.lex();
      this.#items.push(item);
      if (item.tok === 'eos') break;
    }
  }

  #at(context: Context, index: number): ScannedItem {
    const item = this.#items[index] ?? { tok: 'eos', literal: '' };
    if (context === 'values' && (item.tok === 'in' || item.tok === 'notin')) {
      return { tok: 'identifier', literal: item.literal };
    }
    return item;
  }

  #lookahead(context: Context): ScannedItem {
    return this.#at(context, this.#position);
  }

  #consume(context: Context): ScannedItem {
    this.#position++;
    return this.#at(context, this.#position - 1);
  }

  parse(): LabelRequirement[] {
    const requirements: LabelRequirement[] = [];
    for (;;) {
      const { tok, literal } = this.#lookahead('values');
      switch (tok) {
        case 'identifier':
        case '!': {
          let r: LabelRequirement;
          try {
            r = this.#parseRequirement();
          } catch (err: unknown) {
            if (err instanceof ParseError) {
              throw new ParseError(`unable to parse requirement: ${err.message}`);
            }
            throw err;
          }
          requirements.push(r);
          const next = this.#consume('values');
          if (next.tok === 'eos') return requirements;
          if (next.tok === ',') {
            const after = this.#lookahead('values');
            if (after.tok !== 'identifier' && after.tok !== '!') {
              throw new ParseError(`found '${after.literal}', expected: identifier after ','`);
            }
            break;
          }
          throw new ParseError(`found '${next.literal}', expected: ',' or 'end of string'`);
        }
        case 'eos':
          return requirements;
        default:
          throw new ParseError(`found '${literal}', expected: !, identifier, or 'end of string'`);
      }
    }
  }

  #parseRequirement(): LabelRequirement {
    const { key, operator: inferred } = this.#parseKeyAndInferOperator();
    let result: ReturnType<typeof newRequirement>;
    if (inferred === 'exists' || inferred === '!') {
      result = newRequirement(key, inferred, [], null);
    } else {
      const operator = this.#parseOperator();
      const values =
        operator === 'in' || operator === 'notin' ? this.#parseValues() : this.#parseExactValue();
      // sets.String.List(): unique and sorted.
      result = newRequirement(key, operator, [...values].sort(goStringLess), null);
    }
    if ('error' in result) throw new ParseError(result.error);
    return result.requirement;
  }

  #parseKeyAndInferOperator(): { key: string; operator: LabelOperator | '' } {
    let operator: LabelOperator | '' = '';
    let item = this.#consume('values');
    if (item.tok === '!') {
      operator = '!';
      item = this.#consume('values');
    }
    if (item.tok !== 'identifier') {
      throw new ParseError(`found '${item.literal}', expected: identifier`);
    }
    const err = keyError(item.literal, null);
    if (err !== undefined) throw new ParseError(err);
    const next = this.#lookahead('values').tok;
    if ((next === 'eos' || next === ',') && operator !== '!') operator = 'exists';
    return { key: item.literal, operator };
  }

  #parseOperator(): LabelOperator {
    const { tok, literal } = this.#consume('keyAndOperator');
    switch (tok) {
      case 'in':
        return 'in';
      case '=':
        return '=';
      case '==':
        return '==';
      case '>':
        return 'gt';
      case '<':
        return 'lt';
      case 'notin':
        return 'notin';
      case '!=':
        return '!=';
      default:
        throw new ParseError(`found '${literal}', expected: ${BINARY_OPERATORS.join(', ')}`);
    }
  }

  #parseValues(): Set<string> {
    const open = this.#consume('values');
    if (open.tok !== '(') throw new ParseError(`found '${open.literal}' expected: '('`);
    const { tok, literal } = this.#lookahead('values');
    switch (tok) {
      case 'identifier':
      case ',': {
        const s = this.#parseIdentifiersList();
        if (this.#consume('values').tok !== ')') {
          throw new ParseError(`found '${literal}', expected: ')'`);
        }
        return s;
      }
      case ')':
        this.#consume('values');
        return new Set(['']);
      default:
        throw new ParseError(`found '${literal}', expected: ',', ')' or identifier`);
    }
  }

  #parseIdentifiersList(): Set<string> {
    const s = new Set<string>();
    for (;;) {
      const { tok, literal } = this.#consume('values');
      switch (tok) {
        case 'identifier': {
          s.add(literal);
          const next = this.#lookahead('values');
          if (next.tok === ',') continue;
          if (next.tok === ')') return s;
          throw new ParseError(`found '${next.literal}', expected: ',' or ')'`);
        }
        case ',': {
          if (s.size === 0) s.add('');
          const next = this.#lookahead('values').tok;
          if (next === ')') {
            s.add('');
            return s;
          }
          if (next === ',') {
            this.#consume('values');
            s.add('');
          }
          break;
        }
        default:
          throw new ParseError(`found '${literal}', expected: ',', or identifier`);
      }
    }
  }

  #parseExactValue(): Set<string> {
    const next = this.#lookahead('values').tok;
    if (next === 'eos' || next === ',') return new Set(['']);
    const { tok, literal } = this.#consume('values');
    if (tok === 'identifier') return new Set([literal]);
    throw new ParseError(`found '${literal}', expected: identifier`);
  }
}

/**
 * labels.Parse: the `labelSelector` query parameter. `""` (or only whitespace) is Everything.
 * @throws SelectorError `InvalidLabelSelector` with kube's message
 */
export function parseLabelSelector(selector: string): LabelSelector {
  try {
    return new RequirementSelector(new Parser(selector).parse());
  } catch (err: unknown) {
    if (err instanceof ParseError) {
      throw new SelectorError('InvalidLabelSelector', err.message, { cause: err });
    }
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------
// metav1.LabelSelector objects

/** metav1.LabelSelectorRequirement as it arrives on the wire. */
export interface LabelSelectorRequirementObject {
  key: string;
  operator: string;
  values?: string[] | null;
}

/** metav1.LabelSelector as it arrives on the wire. */
export interface LabelSelectorObject {
  matchLabels?: Record<string, string> | null;
  matchExpressions?: LabelSelectorRequirementObject[] | null;
}

const OBJECT_OPERATORS: Readonly<Record<string, LabelOperator>> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
};

/**
 * metav1.LabelSelectorAsSelector. `null`/`undefined` is Nothing (matches no object), `{}` is
 * Everything. matchLabels are checked in key order (kube iterates a Go map, so which error comes
 * first is random there).
 * @throws SelectorError `InvalidLabelSelectorObject` with kube's message
 */
export function labelSelectorFromObject(
  selector: LabelSelectorObject | null | undefined,
): LabelSelector {
  if (selector === null || selector === undefined) return nothingLabelSelector();
  const matchLabels = selector.matchLabels ?? {};
  const matchExpressions = selector.matchExpressions ?? [];
  const requirements: LabelRequirement[] = [];
  const fail = (message: string): never => {
    throw new SelectorError('InvalidLabelSelectorObject', message);
  };
  for (const key of Object.keys(matchLabels).sort(goStringLess)) {
    const r = newRequirement(key, '=', [matchLabels[key] ?? ''], null);
    if ('error' in r) fail(r.error);
    else requirements.push(r.requirement);
  }
  for (const expr of matchExpressions) {
    const op = Object.prototype.hasOwnProperty.call(OBJECT_OPERATORS, expr.operator)
      ? OBJECT_OPERATORS[expr.operator]
      : undefined;
    if (op === undefined)
      fail(`${formatBadValue(expr.operator)} is not a valid label selector operator`);
    const values =
      expr.values === undefined || expr.values === null || expr.values.length === 0
        ? null
        : [...expr.values];
    const r = newRequirement(expr.key, op ?? 'in', values, null);
    if ('error' in r) fail(r.error);
    else requirements.push(r.requirement);
  }
  return new RequirementSelector(requirements);
}

/**
 * metav1.FormatLabelSelector: the selector's String(), `<none>` when empty, `<error>` when it
 * does not convert (what the Pod-Selector column of NetworkPolicies shows).
 */
export function formatLabelSelector(selector: LabelSelectorObject | null | undefined): string {
  let text: string;
  try {
    text = labelSelectorFromObject(selector).toString();
  } catch (err: unknown) {
    if (err instanceof SelectorError) return '<error>';
    throw err;
  }
  return text === '' ? '<none>' : text;
}

/** labels.FormatLabels: `k=v` pairs sorted by key, `<none>` when empty. */
export function formatLabels(labels: Readonly<Record<string, string>> | undefined | null): string {
  const text = labelSelectorFromSet(labels ?? {}).toString();
  return text === '' ? '<none>' : text;
}
