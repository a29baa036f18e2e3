// The Kubernetes JSONPath template parser (k8s.io/client-go/util/jsonpath/parser.go), restated:
// text with `{...}` actions; inside an action `.field`, `..`, `*`, `[n]`, `[a:b:c]`, `[a,b]`,
// `['key']`, `[?(@.x == 'y')]`, quoted text, numbers, `true`/`false`, and the identifiers
// `range`/`end`. The quirks are kept on purpose (`['a.b']` is two fields; a backslash escapes a
// terminator inside a field name), because printer columns and kubectl templates rely on them.
import { JsonPathError } from './errors.ts';

export interface ListNode {
  readonly type: 'list';
  readonly nodes: JsonPathNode[];
}
export interface TextNode {
  readonly type: 'text';
  readonly text: string;
}
export interface FieldNode {
  readonly type: 'field';
  readonly name: string;
}
export interface ArrayParam {
  known: boolean;
  value: number;
  derived: boolean;
}
export interface ArrayNode {
  readonly type: 'array';
  readonly params: readonly [ArrayParam, ArrayParam, ArrayParam];
}
export interface FilterNode {
  readonly type: 'filter';
  readonly left: ListNode;
  readonly right: ListNode;
  readonly operator: string;
}
export interface IntNode {
  readonly type: 'int';
  readonly value: number;
}
export interface FloatNode {
  readonly type: 'float';
  readonly value: number;
}
export interface BoolNode {
  readonly type: 'bool';
  readonly value: boolean;
}
export interface WildcardNode {
  readonly type: 'wildcard';
}
export interface RecursiveNode {
  readonly type: 'recursive';
}
export interface UnionNode {
  readonly type: 'union';
  readonly nodes: readonly ListNode[];
}
export interface IdentifierNode {
  readonly type: 'identifier';
  readonly name: string;
}

export type JsonPathNode =
  | ListNode
  | TextNode
  | FieldNode
  | ArrayNode
  | FilterNode
  | IntNode
  | FloatNode
  | BoolNode
  | WildcardNode
  | RecursiveNode
  | UnionNode
  | IdentifierNode;

function newList(): ListNode {
  return { type: 'list', nodes: [] };
}

function fail(message: string): never {
  throw new JsonPathError('InvalidJsonPath', message);
}

const DICT_KEY = /^'([^']*)'$/;
const SLICE = /^(-?\d*)(:-?\d*)?(:-?\d*)?$/;
const FILTER = /^([^!<>=]+)([!<>=]+)(.+?)$/s;

function isSpace(r: string | null): boolean {
  return r === ' ' || r === '\t';
}
function isEndOfLine(r: string | null): boolean {
  return r === '\r' || r === '\n';
}
function isTerminator(r: string | null): boolean {
  if (r === null || isSpace(r) || isEndOfLine(r)) return true;
  return '.,[]$@{}'.includes(r);
}
function isDigit(r: string | null): boolean {
  return r !== null && /^\p{Nd}$/u.test(r);
}
function isAlphaNumeric(r: string | null): boolean {
  return r !== null && /^[\p{L}\p{Nd}_]$/u.test(r);
}

/** Go's `%#U`: `U+0023 '#'`, the quoted glyph only for printable runes. */
function goRuneU(r: string): string {
  const cp = r.codePointAt(0) ?? 0;
  const hex = `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  return /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(r) ? `${hex} '${r}'` : hex;
}

/** strconv.Atoi: decimal with optional sign, within int64. */
function goAtoi(s: string): number | undefined {
  if (!/^[+-]?\d+$/.test(s)) return undefined;
  const big = BigInt(s);
  if (big < -(2n ** 63n) || big >= 2n ** 63n) return undefined;
  return Number(big);
}

/** strconv.ParseFloat for the digits-and-dots strings parseNumber can produce. */
function goParseFloat(s: string): number | undefined {
  return /^[+-]?(\d+\.?\d*|\.\d+)$/.test(s) ? Number(s) : undefined;
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
};

/**
 * UnquoteExtend: strconv.Unquote that also accepts single quotes. Escapes follow
 * strconv.UnquoteChar; `\'` is only valid inside '...' and `\"` only inside "...".
 */
function unquoteExtend(s: string): string | undefined {
  const chars = Array.from(s);
  const n = chars.length;
  if (n < 2) return undefined;
  const quote = chars[0];
  if (quote !== chars[n - 1] || (quote !== '"' && quote !== "'")) return undefined;
  const body = chars.slice(1, n - 1);
  let out = '';
  for (let i = 0; i < body.length;) {
    const c = body[i] ?? '';
    if (c === quote) return undefined;
    if (c !== '\\') {
      out += c;
      i++;
      continue;
    }
    const e = body[i + 1];
    if (e === undefined) return undefined;
    if (e in SIMPLE_ESCAPES) {
      out += SIMPLE_ESCAPES[e];
      i += 2;
      continue;
    }
    if (e === "'" || e === '"') {
      if (e !== quote) return undefined;
      out += e;
      i += 2;
      continue;
    }
    const hexLen = e === 'x' ? 2 : e === 'u' ? 4 : e === 'U' ? 8 : 0;
    if (hexLen > 0) {
      const hex = body.slice(i + 2, i + 2 + hexLen).join('');
      if (!new RegExp(`^[0-9a-fA-F]{${hexLen}}$`).test(hex)) return undefined;
      const v = parseInt(hex, 16);
      if (e === 'x') out += String.fromCharCode(v);
      else {
        if (v > 0x10ffff || (v >= 0xd800 && v < 0xe000)) return undefined;
        out += String.fromCodePoint(v);
      }
      i += 2 + hexLen;
      continue;
    }
    if (/^[0-7]$/.test(e)) {
      const oct = body.slice(i + 1, i + 4).join('');
      if (!/^[0-7]{3}$/.test(oct)) return undefined;
      const v = parseInt(oct, 8);
      if (v > 255) return undefined;
      out += String.fromCharCode(v);
      i += 4;
      continue;
    }
    return undefined;
  }
  return out;
}

class Parser {
  readonly root: ListNode = newList();
  readonly #chars: string[];
  #pos = 0;
  #start = 0;
  #width = 0;

  constructor(text: string) {
    this.#chars = Array.from(text);
  }

  #rest(prefix: string): boolean {
    const p = Array.from(prefix);
    return p.every((c, i) => this.#chars[this.#pos + i] === c);
  }

  #consumeText(): string {
    const value = this.#chars.slice(this.#start, this.#pos).join('');
    this.#start = this.#pos;
    return value;
  }

  #next(): string | null {
    if (this.#pos >= this.#chars.length) {
      this.#width = 0;
      return null;
    }
    this.#width = 1;
    return this.#chars[this.#pos++] ?? null;
  }

  #peek(): string | null {
    const r = this.#next();
    this.#backup();
    return r;
  }

  #backup(): void {
    this.#pos -= this.#width;
  }

  #charAt(i: number): string | undefined {
    return this.#chars[i];
  }

  parse(): ListNode {
    for (;;) {
      // parseText: plain text up to the next `{`.
      for (;;) {
        if (this.#rest('{')) break;
        if (this.#next() === null) {
          if (this.#pos > this.#start)
            this.root.nodes.push({ type: 'text', text: this.#consumeText() });
          return this.root;
        }
      }
      if (this.#pos > this.#start)
        this.root.nodes.push({ type: 'text', text: this.#consumeText() });
      // parseLeftDelim
      this.#pos += 1;
      this.#consumeText();
      const node = newList();
      this.root.nodes.push(node);
      this.#parseInsideAction(node);
    }
  }

  /** Returns after the action's closing `}` (parseRightDelim hands back to the root's text). */
  #parseInsideAction(cur: ListNode): void {
    for (;;) {
      if (this.#rest('}')) {
        this.#pos += 1;
        this.#consumeText();
        return;
      }
      if (this.#rest('[?(')) {
        this.#parseFilter(cur);
        continue;
      }
      if (this.#rest('..')) {
        this.#parseRecursive(cur);
        continue;
      }
      const r = this.#next();
      if (r === null || isEndOfLine(r)) fail('unclosed action');
      if (r === ' ' || r === '@' || r === '$') {
        this.#consumeText();
      } else if (r === '[') {
        this.#parseArray(cur);
      } else if (r === '"' || r === "'") {
        this.#parseQuote(cur, r);
      } else if (r === '.') {
        this.#parseField(cur);
      } else if (r === '+' || r === '-' || isDigit(r)) {
        this.#backup();
        this.#parseNumber(cur);
      } else if (isAlphaNumeric(r)) {
        this.#backup();
        this.#parseIdentifier(cur);
      } else {
        fail(`unrecognized character in action: ${goRuneU(r)}`);
      }
    }
  }

  #parseIdentifier(cur: ListNode): void {
    for (;;) {
      const r = this.#next();
      if (isTerminator(r)) {
        this.#backup();
        break;
      }
    }
    const value = this.#consumeText();
    if (value === 'true' || value === 'false')
      cur.nodes.push({ type: 'bool', value: value === 'true' });
    else cur.nodes.push({ type: 'identifier', name: value });
  }

  #parseRecursive(cur: ListNode): void {
    const last = cur.nodes[cur.nodes.length - 1];
    if (last !== undefined && last.type === 'recursive') fail('invalid multiple recursive descent');
    this.#pos += 2;
    this.#consumeText();
    cur.nodes.push({ type: 'recursive' });
    if (isAlphaNumeric(this.#peek())) this.#parseField(cur);
  }

  #parseNumber(cur: ListNode): void {
    const first = this.#peek();
    if (first === '+' || first === '-') this.#next();
    for (;;) {
      const r = this.#next();
      if (r !== '.' && !isDigit(r)) {
        this.#backup();
        break;
      }
    }
    const value = this.#consumeText();
    const i = goAtoi(value);
    if (i !== undefined) {
      cur.nodes.push({ type: 'int', value: i });
      return;
    }
    const f = goParseFloat(value);
    if (f !== undefined) {
      cur.nodes.push({ type: 'float', value: f });
      return;
    }
    fail(`cannot parse number ${value}`);
  }

  #parseArray(cur: ListNode): void {
    for (;;) {
      const r = this.#next();
      if (r === null || r === '\n') fail('unterminated array');
      if (r === ']') break;
    }
    let text = this.#consumeText();
    text = text.slice(1, -1);
    if (text === '*') text = ':';

    const strs = text.split(',');
    if (strs.length > 1) {
      const union = strs.map((s) => parseAction(`[${s.replace(/^ +| +$/g, '')}]`));
      cur.nodes.push({ type: 'union', nodes: union });
      return;
    }

    const dict = DICT_KEY.exec(text);
    if (dict !== null) {
      cur.nodes.push(...parseAction(`.${dict[1] ?? ''}`).nodes);
      return;
    }

    const slice = SLICE.exec(text);
    if (slice === null) fail(`invalid array index ${text}`);
    const groups = [slice[1] ?? '', slice[2] ?? '', slice[3] ?? ''];
    const params: [ArrayParam, ArrayParam, ArrayParam] = [
      { known: false, value: 0, derived: false },
      { known: false, value: 0, derived: false },
      { known: false, value: 0, derived: false },
    ];
    for (let i = 0; i < 3; i++) {
      let g = groups[i] ?? '';
      const p = params[i] as ArrayParam;
      if (g !== '') {
        if (i > 0) g = g.slice(1);
        if (i > 0 && g === '') {
          p.known = false;
        } else {
          const v = goAtoi(g);
          if (v === undefined) fail(`array index ${g} is not a number`);
          p.known = true;
          p.value = v;
        }
      } else if (i === 1) {
        p.known = true;
        p.value = params[0].value + 1;
        p.derived = true;
      }
    }
    cur.nodes.push({ type: 'array', params });
  }

  #parseFilter(cur: ListNode): void {
    this.#pos += 3;
    this.#consumeText();
    let begin = false;
    let end = false;
    let pair = '';
    for (;;) {
      const r = this.#next();
      if (r === null || r === '\n') fail('unterminated filter');
      if (r === '"' || r === "'") {
        if (!begin) {
          begin = true;
          pair = r;
          continue;
        }
        if (this.#charAt(this.#pos - 2) !== '\\' && r === pair) end = true;
      } else if (r === ')') {
        if (begin === end) break;
      }
    }
    if (this.#next() !== ']') fail('unclosed array expect ]');
    let text = this.#consumeText();
    text = text.slice(0, -2);
    const m = FILTER.exec(text);
    if (m === null) {
      cur.nodes.push({
        type: 'filter',
        left: parseAction(text),
        right: newList(),
        operator: 'exists',
      });
    } else {
      cur.nodes.push({
        type: 'filter',
        left: parseAction(m[1] ?? ''),
        right: parseAction(m[3] ?? ''),
        operator: m[2] ?? '',
      });
    }
  }

  #parseQuote(cur: ListNode, end: string): void {
    for (;;) {
      const r = this.#next();
      if (r === null || r === '\n') fail('unterminated quoted string');
      if (r === end && this.#charAt(this.#pos - 2) !== '\\') break;
    }
    const value = this.#consumeText();
    const s = unquoteExtend(value);
    if (s === undefined) fail(`unquote string ${value} error invalid syntax`);
    cur.nodes.push({ type: 'text', text: s });
  }

  #parseField(cur: ListNode): void {
    this.#consumeText();
    while (this.#advance()) {
      /* scan to the next unescaped terminator */
    }
    const value = this.#consumeText();
    if (value === '*') cur.nodes.push({ type: 'wildcard' });
    else cur.nodes.push({ type: 'field', name: value.replaceAll('\\', '') });
  }

  #advance(): boolean {
    const r = this.#next();
    if (r === '\\') {
      this.#next();
    } else if (isTerminator(r)) {
      this.#backup();
      return false;
    }
    return true;
  }
}

/** parseAction: the single action list of `{text}`. */
function parseAction(text: string): ListNode {
  const root = new Parser(`{${text}}`).parse();
  const first = root.nodes[0];
  return first !== undefined && first.type === 'list' ? first : newList();
}

/**
 * Parses a JSONPath template (`text {.a.b} more {.c}`): the root list holds text nodes and one
 * list node per action.
 * @throws JsonPathError `InvalidJsonPath` with client-go's message
 */
export function parseTemplate(text: string): ListNode {
  return new Parser(text).parse();
}
