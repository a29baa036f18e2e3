// JSON value helpers shared by the patch engines. Values are plain JSON (what JSON.parse returns);
// nothing here mutates its inputs.

export type JsonObject = Record<string, unknown>;

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function deepClone<T>(v: T): T {
  return v === undefined ? v : (structuredClone(v) as T);
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => deepEqual(x, b[i]));
  }
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

/**
 * JSON as Go's encoding/json writes it: map keys sorted and `<`, `>`, `&`, U+2028, U+2029 escaped.
 * fieldsV1 keys (`k:{…}`, `v:…`) embed values in this form, so the escaping must match.
 */
export function goJson(v: unknown): string {
  const json = JSON.stringify(typeof v === 'object' ? sortKeys(v) : v);
  if (!GO_ESCAPED.test(json)) return json;
  return json.replace(GO_ESCAPED_ALL, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

const GO_ESCAPED = /[<>&\u2028\u2029]/;
const GO_ESCAPED_ALL = /[<>&\u2028\u2029]/g;

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (!isObject(v)) return v;
  const out: JsonObject = {};
  for (const k of Object.keys(v).sort(compareStrings)) out[k] = sortKeys(v[k]);
  return out;
}

/** Byte-order comparison of UTF-8 strings, as Go's strings.Compare. */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  // UTF-16 code-unit order equals UTF-8 byte order below the surrogate range.
  if (!HIGH.test(a) && !HIGH.test(b)) return a < b ? -1 : 1;
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

const HIGH = /[\uD800-\uFFFF]/;

const TYPE_RANK = { number: 0, string: 1, boolean: 2, list: 3, map: 4, null: 5 } as const;

function rank(v: unknown): number {
  if (typeof v === 'number') return TYPE_RANK.number;
  if (typeof v === 'string') return TYPE_RANK.string;
  if (typeof v === 'boolean') return TYPE_RANK.boolean;
  if (Array.isArray(v)) return TYPE_RANK.list;
  if (isObject(v)) return TYPE_RANK.map;
  return TYPE_RANK.null;
}

/**
 * Total order over JSON values as structured-merge-diff's value.Compare defines it: numbers, then
 * strings, booleans, lists, maps, null; lists element-wise, maps by sorted keys.
 */
export function compareValues(a: unknown, b: unknown): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  if (typeof a === 'number' && typeof b === 'number') return a === b ? 0 : a < b ? -1 : 1;
  if (typeof a === 'string' && typeof b === 'string') return compareStrings(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const c = compareValues(a[i], b[i]);
      if (c !== 0) return c;
    }
    return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
  }
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a).sort(compareStrings);
    const kb = Object.keys(b).sort(compareStrings);
    for (let i = 0; i < Math.min(ka.length, kb.length); i++) {
      const kc = compareStrings(ka[i] as string, kb[i] as string);
      if (kc !== 0) return kc;
      const vc = compareValues(a[ka[i] as string], b[kb[i] as string]);
      if (vc !== 0) return vc;
    }
    return ka.length === kb.length ? 0 : ka.length < kb.length ? -1 : 1;
  }
  return 0;
}

/** structured-merge-diff's value.ToString, used in field paths of conflict messages. */
export function valueToString(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return '[' + v.map(valueToString).join(',') + ']';
  if (isObject(v)) {
    const parts = Object.keys(v)
      .sort(compareStrings)
      .map((k) => `${k}=${valueToString(v[k])}`);
    return '{' + parts.join(';') + '}';
  }
  return String(v);
}

/** Go's `%v` rendering of decoded JSON, used in messages the real server copies from Go errors. */
export function goFormat(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return '[' + v.map(goFormat).join(' ') + ']';
  if (isObject(v)) {
    const parts = Object.keys(v)
      .sort(compareStrings)
      .map((k) => `${k}:${goFormat(v[k])}`);
    return 'map[' + parts.join(' ') + ']';
  }
  return String(v);
}
