// How Go prints the JSON values a JSONPath result holds. JSON decoded by apimachinery gives
// int64 for whole numbers and float64 otherwise, so a JS number prints as an int64 when it is an
// integer and as a float64 (`%v`, i.e. strconv 'g' with exponent from 1e+06) when not.
// goFloat and goNumber are crd-schema's, the one copy of Go's number formatting.
import { goFloat, goNumber } from '@agent-sandbox/crd-schema';

export { goFloat, goNumber };

/** A float literal from a template (`{[?(@.x > 1.5)]}`): float64 even when whole. */
export class FloatLiteral {
  constructor(readonly value: number) {}
}

const JSON_ESCAPES: Readonly<Record<string, string>> = {
  '"': '\\"',
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

function goJsonString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const esc = JSON_ESCAPES[ch];
    if (esc !== undefined) out += esc;
    else {
      const cp = ch.codePointAt(0) ?? 0;
      if (cp < 0x20) out += `\\u00${cp.toString(16).padStart(2, '0')}`;
      else if (cp >= 0xd800 && cp < 0xe000) out += '\\ufffd';
      else out += ch;
    }
  }
  return `${out}"`;
}

/**
 * encoding/json.Marshal of a decoded JSON value: compact, map keys sorted, HTML-safe escapes
 * (`<` → `\u003c`), floats as Go formats them for JSON (which agrees with JS).
 */
export function goJsonMarshal(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (v instanceof FloatLiteral) return JSON.stringify(v.value);
  switch (typeof v) {
    case 'string':
      return goJsonString(v);
    case 'number':
      return Number.isFinite(v) ? JSON.stringify(v) : 'null';
    case 'boolean':
      return v ? 'true' : 'false';
    case 'object': {
      if (Array.isArray(v)) return `[${v.map(goJsonMarshal).join(',')}]`;
      const o = v as Record<string, unknown>;
      const keys = Object.keys(o).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      return `{${keys.map((k) => `${goJsonString(k)}:${goJsonMarshal(o[k])}`).join(',')}}`;
    }
    default:
      return 'null';
  }
}

/**
 * One JSONPath result as PrintResults writes it: objects and arrays as compact JSON, strings
 * raw, numbers and booleans with `%v`. A JSON null prints as `nullText`: `<nil>` when it came
 * out of an evaluated path, `<no value>` when printed on its own (the printer-column path).
 */
export function printValue(v: unknown, nullText = '<nil>'): string {
  if (v === null || v === undefined) return nullText;
  if (v instanceof FloatLiteral) return goFloat(v.value);
  switch (typeof v) {
    case 'string':
      return v;
    case 'number':
      return goNumber(v);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'object':
      return goJsonMarshal(v);
    default:
      return String(v);
  }
}
