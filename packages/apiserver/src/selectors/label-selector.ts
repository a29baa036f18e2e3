// Label selectors as k8s.io/apimachinery/pkg/labels implements them: the string grammar of
// `?labelSelector=` (Parse), the requirement validation of NewRequirement, matching, and String().
// Error messages are kube's, byte for byte, because the API server returns them in 400 Status
// bodies (`unable to parse requirement: ...`, `found 'x', expected: ...`).
// The requirement model lives in label-requirement.ts and the lexer in label-lexer.ts.
import { formatBadValue } from '@agent-sandbox/crd-schema';
import { ApiServerError } from '../errors.ts';
import { SelectorError } from './errors.ts';
import { Lexer, type ScannedItem } from './label-lexer.ts';
import {
  BINARY_OPERATORS,
  goStringLess,
  keyError,
  labelSelectorFromSet,
  newRequirement,
  nothingLabelSelector,
  RequirementSelector,
  type LabelOperator,
  type LabelRequirement,
  type LabelSelector,
} from './label-requirement.ts';

export {
  everythingLabelSelector,
  labelSelectorFromSet,
  nothingLabelSelector,
  type LabelOperator,
  type LabelRequirement,
  type LabelSelector,
} from './label-requirement.ts';

// ---------------------------------------------------------------------------------------------
// Parser

type Context = 'keyAndOperator' | 'values';

/** A parser failure, turned into a SelectorError with the selector's text below. */
class ParseError extends ApiServerError {
  constructor(message: string) {
    super('ParseError', message);
  }
}

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
