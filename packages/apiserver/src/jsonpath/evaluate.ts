// Evaluation of parsed JSONPath templates against decoded JSON, restating
// k8s.io/client-go/util/jsonpath/jsonpath.go: the same result grouping ([][]value, one group per
// template node), the same skipping of nulls, the same bounds errors and filter comparisons
// (the forked text/template eq/lt/... rules: ints compare with ints, floats with floats, strings
// with strings, anything else is an error).
import { JsonPathError } from './errors.ts';
import { FloatLiteral, printValue } from './go-print.ts';
import {
  parseTemplate,
  type ArrayNode,
  type FilterNode,
  type JsonPathNode,
  type ListNode,
} from './parser.ts';

export interface JsonPathOptions {
  /**
   * When true a missing field yields no result instead of the error `<field> is not found`.
   * @default true (what CRD printer columns and `kubectl -o jsonpath` use)
   */
  allowMissingKeys?: boolean;
}

/**
 * A compiled template. Contract: pure; never mutates `data`; throws JsonPathError
 * `JsonPathEvaluation` where client-go's FindResults returns an error.
 */
export interface JsonPath {
  /** One result group per top-level template node (text nodes give their text). */
  findResults(data: unknown): unknown[][];
  /** All results of all groups, in order (float literals unwrapped to numbers). */
  evaluate(data: unknown): unknown[];
  /** Template execution as `kubectl -o jsonpath` prints it (values of a group space-separated). */
  print(data: unknown): string;
}

/** An evaluation error plus what client-go's walk returned alongside it (used by `exists`). */
class EvalFailure extends JsonPathError {
  constructor(
    message: string,
    readonly partial: unknown[],
  ) {
    super('JsonPathEvaluation', message);
  }
}

type Step =
  | { kind: 'node'; node: JsonPathNode }
  | { kind: 'range'; action: ListNode; body: Step[] }
  | { kind: 'end' };

function isRangeAction(node: JsonPathNode): node is ListNode {
  const first = node.type === 'list' ? node.nodes[0] : undefined;
  return first !== undefined && first.type === 'identifier' && first.name === 'range';
}

function isEndAction(node: JsonPathNode): boolean {
  const first = node.type === 'list' ? node.nodes[0] : undefined;
  return (
    node.type === 'list' &&
    node.nodes.length === 1 &&
    first?.type === 'identifier' &&
    first.name === 'end'
  );
}

/** Groups `{range ...}` ... `{end}` into blocks (an unclosed range runs to the end). */
function structure(
  nodes: readonly JsonPathNode[],
  from: number,
  inRange: boolean,
): { steps: Step[]; next: number } {
  const steps: Step[] = [];
  let i = from;
  while (i < nodes.length) {
    const node = nodes[i] as JsonPathNode;
    if (isEndAction(node)) {
      if (inRange) return { steps, next: i + 1 };
      steps.push({ kind: 'end' });
      i++;
    } else if (isRangeAction(node)) {
      const body = structure(nodes, i + 1, true);
      steps.push({
        kind: 'range',
        action: { type: 'list', nodes: node.nodes.slice(1) },
        body: body.steps,
      });
      i = body.next;
    } else {
      steps.push({ kind: 'node', node });
      i++;
    }
  }
  return { steps, next: i };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof FloatLiteral);
}

/** Go's name for the dynamic type of a decoded JSON value (`%v` of reflect.Type). */
function goTypeName(v: unknown): string {
  if (Array.isArray(v)) return '[]interface {}';
  if (v instanceof FloatLiteral) return 'float64';
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'number':
      return Number.isInteger(v) ? 'int64' : 'float64';
    case 'boolean':
      return 'bool';
    case 'object':
      return v === null ? '<nil>' : 'map[string]interface {}';
    default:
      return 'interface {}';
  }
}

/** `%v` of a decoded JSON value (only used inside error messages). */
function goSprintV(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goSprintV).join(' ')}]`;
  if (isObject(v)) {
    const keys = Object.keys(v).sort();
    return `map[${keys.map((k) => `${k}:${goSprintV(v[k])}`).join(' ')}]`;
  }
  return printValue(v);
}

/** The children recursive descent and `*` visit: object values, array items, string bytes. */
function children(v: unknown): unknown[] {
  if (Array.isArray(v)) return [...v];
  if (isObject(v)) return Object.values(v);
  if (typeof v === 'string') return [...new TextEncoder().encode(v)];
  return [];
}

type Kind = 'bool' | 'int' | 'float' | 'string';

function basicKind(v: unknown): Kind {
  if (v instanceof FloatLiteral) return 'float';
  switch (typeof v) {
    case 'boolean':
      return 'bool';
    case 'number':
      return Number.isInteger(v) ? 'int' : 'float';
    case 'string':
      return 'string';
    default:
      throw new EvalFailure('invalid type for comparison', []);
  }
}

function plain(v: unknown): number | string | boolean {
  if (v instanceof FloatLiteral) return v.value;
  return v as number | string | boolean;
}

function equal(a: unknown, b: unknown): boolean {
  const k1 = basicKind(a);
  const k2 = basicKind(b);
  if (k1 !== k2) throw new EvalFailure('incompatible types for comparison', []);
  return plain(a) === plain(b);
}

function less(a: unknown, b: unknown): boolean {
  const k1 = basicKind(a);
  const k2 = basicKind(b);
  if (k1 !== k2) throw new EvalFailure('incompatible types for comparison', []);
  if (k1 === 'bool') throw new EvalFailure('invalid type for comparison', []);
  return plain(a) < plain(b);
}

function compare(op: string, a: unknown, b: unknown): boolean {
  switch (op) {
    case '<':
      return less(a, b);
    case '>':
      return !(less(a, b) || equal(a, b));
    case '==':
      return equal(a, b);
    case '!=':
      return !equal(a, b);
    case '<=':
      return less(a, b) || equal(a, b);
    case '>=':
      return !less(a, b);
    default:
      throw new EvalFailure(`unrecognized filter operator ${op}`, []);
  }
}

class Evaluator {
  constructor(private readonly allowMissingKeys: boolean) {}

  walk(input: unknown[], node: JsonPathNode): unknown[] {
    switch (node.type) {
      case 'list':
        return this.evalList(input, node);
      case 'text':
        return [node.text];
      case 'field':
        return this.evalField(input, node.name);
      case 'array':
        return this.evalArray(input, node);
      case 'filter':
        return this.evalFilter(input, node);
      case 'int':
      case 'bool':
        return input.map(() => node.value);
      case 'float':
        return input.map(() => new FloatLiteral(node.value));
      case 'wildcard':
        return input.filter((v) => v !== null && v !== undefined).flatMap(children);
      case 'recursive':
        return this.evalRecursive(input);
      case 'union':
        return node.nodes.flatMap((list) => {
          try {
            return this.evalList(input, list);
          } catch (err: unknown) {
            if (err instanceof EvalFailure) throw new EvalFailure(err.message, input);
            throw err;
          }
        });
      case 'identifier':
        if (node.name === 'range') return input;
        if (node.name === 'end') throw new EvalFailure('not in range, nothing to end', []);
        throw new EvalFailure(`unrecognized identifier ${node.name}`, input);
    }
  }

  evalList(input: unknown[], node: ListNode): unknown[] {
    let cur = input;
    for (const n of node.nodes) cur = this.walk(cur, n);
    return cur;
  }

  /** evalList that, like Go, also reports what it had when a step failed. */
  #evalListPartial(input: unknown[], node: ListNode): { values: unknown[]; error?: EvalFailure } {
    let cur = input;
    for (const n of node.nodes) {
      try {
        cur = this.walk(cur, n);
      } catch (err: unknown) {
        if (err instanceof EvalFailure) return { values: err.partial, error: err };
        throw err;
      }
    }
    return { values: cur };
  }

  evalField(input: unknown[], name: string): unknown[] {
    if (input.length === 0) return [];
    const results: unknown[] = [];
    for (const v of input) {
      if (isObject(v) && Object.prototype.hasOwnProperty.call(v, name)) results.push(v[name]);
    }
    if (results.length === 0 && !this.allowMissingKeys) {
      throw new EvalFailure(`${name} is not found`, []);
    }
    return results;
  }

  evalArray(input: unknown[], node: ArrayNode): unknown[] {
    const result: unknown[] = [];
    for (const v of input) {
      if (v === null || v === undefined) continue;
      if (!Array.isArray(v)) throw new EvalFailure(`${goTypeName(v)} is not array or slice`, input);
      const [p0, p1, p2] = node.params;
      const len = v.length;
      let start = p0.known ? p0.value : 0;
      if (start < 0) start += len;
      let end = p1.known ? p1.value : len;
      if (end < 0 || (end === 0 && p1.derived)) end += len;
      if (end === start) return result; // "if you're requesting zero elements, allow it through"
      if (start >= len || start < 0) {
        throw new EvalFailure(`array index out of bounds: index ${start}, length ${len}`, input);
      }
      if (end > len || end < 0) {
        throw new EvalFailure(`array index out of bounds: index ${end - 1}, length ${len}`, input);
      }
      if (start > end) {
        throw new EvalFailure(`starting index ${start} is greater than ending index ${end}`, input);
      }
      let step = 1;
      if (p2.known) {
        if (p2.value <= 0) throw new EvalFailure('step must be > 0', input);
        step = p2.value;
      }
      const slice = v.slice(start, end);
      for (let i = 0; i < slice.length; i += step) result.push(slice[i]);
    }
    return result;
  }

  evalRecursive(input: unknown[]): unknown[] {
    const result: unknown[] = [];
    for (const v of input) {
      if (v === null || v === undefined) continue;
      const kids = children(v);
      if (kids.length === 0) continue;
      result.push(v);
      result.push(...this.evalRecursive(kids));
    }
    return result;
  }

  evalFilter(input: unknown[], node: FilterNode): unknown[] {
    const results: unknown[] = [];
    for (const v of input) {
      if (!Array.isArray(v)) {
        throw new EvalFailure(
          `${goSprintV(v)} is not array or slice and cannot be filtered`,
          input,
        );
      }
      for (const item of v) {
        const left = this.#evalListPartial([item], node.left);
        if (node.operator === 'exists') {
          if (left.values.length > 0) results.push(item);
          continue;
        }
        if (left.error !== undefined) throw new EvalFailure(left.error.message, input);
        if (left.values.length === 0) continue;
        if (left.values.length > 1)
          throw new EvalFailure('can only compare one element at a time', input);
        const right = this.#evalListPartial([item], node.right);
        if (right.error !== undefined) throw new EvalFailure(right.error.message, input);
        if (right.values.length === 0) continue;
        if (right.values.length > 1)
          throw new EvalFailure('can only compare one element at a time', input);
        let pass: boolean;
        try {
          pass = compare(node.operator, left.values[0], right.values[0]);
        } catch (err: unknown) {
          if (err instanceof EvalFailure) throw new EvalFailure(err.message, results);
          throw err;
        }
        if (pass) results.push(item);
      }
    }
    return results;
  }

  findResults(data: unknown, steps: readonly Step[]): unknown[][] {
    const full: unknown[][] = [];
    for (const step of steps) {
      if (step.kind === 'end') throw new EvalFailure('not in range, nothing to end', []);
      if (step.kind === 'node') {
        full.push(this.walk([data], step.node));
        continue;
      }
      for (const value of this.evalList([data], step.action)) {
        full.push(...this.findResults(value, step.body));
      }
    }
    return full;
  }
}

function unwrap(v: unknown): unknown {
  return v instanceof FloatLiteral ? v.value : v;
}

class CompiledJsonPath implements JsonPath {
  readonly #steps: Step[];
  readonly #evaluator: Evaluator;

  constructor(root: ListNode, opts: JsonPathOptions) {
    this.#steps = structure(root.nodes, 0, false).steps;
    this.#evaluator = new Evaluator(opts.allowMissingKeys ?? true);
  }

  findResults(data: unknown): unknown[][] {
    try {
      return this.#evaluator.findResults(data, this.#steps);
    } catch (err: unknown) {
      // Re-throw as the public class without the internal partial-result payload.
      if (err instanceof EvalFailure)
        throw new JsonPathError('JsonPathEvaluation', err.message, { cause: err });
      throw err;
    }
  }

  evaluate(data: unknown): unknown[] {
    return this.findResults(data).flat().map(unwrap);
  }

  print(data: unknown): string {
    return this.findResults(data)
      .map((group) => group.map((v) => printValue(v)).join(' '))
      .join('');
  }
}

/**
 * A full template, as `kubectl -o jsonpath=` takes it: literal text plus `{...}` actions,
 * `{range}`/`{end}` included.
 * @throws JsonPathError `InvalidJsonPath`
 */
export function parseJsonPathTemplate(text: string, opts: JsonPathOptions = {}): JsonPath {
  return new CompiledJsonPath(parseTemplate(text), opts);
}

/**
 * A bare expression such as a printer column's `jsonPath` (`.status.conditions[?(@.type=='Ready')].status`),
 * wrapped in `{}` exactly as the CRD table convertor does.
 * @throws JsonPathError `InvalidJsonPath`
 */
export function parseJsonPath(expr: string, opts: JsonPathOptions = {}): JsonPath {
  return new CompiledJsonPath(parseTemplate(`{${expr}}`), opts);
}
