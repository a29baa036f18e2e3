// Go `fmt` and `encoding/json` renderings that appear verbatim in kube-apiserver messages. JSON values reach the
// apiserver as Go `interface{}`: whole numbers decode to int64 and everything else to float64
// (apimachinery's unstructured JSON decoding), so a JS number is printed as int64 when it is an
// integer and as float64 otherwise.

/** strconv.Quote / `%q` for the strings we print: JSON-ish escapes plus Go's \a \b \f \v \x. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    switch (ch) {
      case '"':
        out += '\\"';
        continue;
      case '\\':
        out += '\\\\';
        continue;
      case '\n':
        out += '\\n';
        continue;
      case '\r':
        out += '\\r';
        continue;
      case '\t':
        out += '\\t';
        continue;
      case '\x07':
        out += '\\a';
        continue;
      case '\b':
        out += '\\b';
        continue;
      case '\f':
        out += '\\f';
        continue;
      case '\v':
        out += '\\v';
        continue;
    }
    if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/**
 * `%v` of a float64: strconv.FormatFloat(f, 'g', -1, 64). Shortest digits; exponent form when
 * the exponent is < -4 or >= 6 (strconv/ftoa.go: "if precision was the shortest possible, use
 * precision 6 for this decision"), with at least two exponent digits: 1e+06, 1.5e-07.
 */
export function goFloat(f: number): string {
  if (Number.isNaN(f)) return 'NaN';
  if (!Number.isFinite(f)) return f > 0 ? '+Inf' : '-Inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  const [mantissa, expPart] = f.toExponential().split('e') as [string, string];
  const exp = Number(expPart);
  if (exp < -4 || exp >= 6) {
    const abs = Math.abs(exp);
    return `${mantissa}e${exp < 0 ? '-' : '+'}${abs < 10 ? `0${abs}` : abs}`;
  }
  return String(f);
}

/**
 * `%v` of a decoded JSON number: an int64 when it is whole (printed in full), else a float64.
 */
export function goNumber(n: number): string {
  return isJSONInteger(n) ? BigInt(n).toString() : goFloat(n);
}

/** Whether a JS number would have decoded to a Go int64 (whole and in range). */
export function isJSONInteger(n: number): boolean {
  return Number.isInteger(n) && Math.abs(n) <= 2 ** 63;
}

/**
 * Go's `encoding/json` Marshal of a decoded JSON value (`interface{}` holding nil, bool, string,
 * int64, float64, `[]interface{}` or `map[string]interface{}`), which field.Error.ErrorBody uses
 * for every bad value that is not a string, int32/int64, float32/float64 or bool since
 * kubernetes/kubernetes#132314 (k8s.io/apimachinery/pkg/util/validation/field/errors.go: "use
 * more complex techniques to render more complex types ... json.Marshal(e.BadValue)"). Compact,
 * map keys sorted bytewise, HTML-safe string escapes.
 */
export function goJSON(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return jsonString(v);
  if (typeof v === 'number') return isJSONInteger(v) ? BigInt(v).toString() : jsonFloat(v);
  if (typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(goJSON).join(',')}]`;
  if (typeof v === 'object') {
    const obj = v as Record<string, unknown>;
    const entries = Object.keys(obj)
      .filter((k) => obj[k] !== undefined)
      .sort(compareUTF8)
      .map((k) => `${jsonString(k)}:${goJSON(obj[k])}`);
    return `{${entries.join(',')}}`;
  }
  return jsonString(String(v));
}

/** Go sorts map keys as byte strings; UTF-8 byte order is code point order. */
function compareUTF8(a: string, b: string): number {
  const ca = [...a];
  const cb = [...b];
  for (let i = 0; i < Math.min(ca.length, cb.length); i++) {
    const x = ca[i]?.codePointAt(0) ?? 0;
    const y = cb[i]?.codePointAt(0) ?? 0;
    if (x !== y) return x - y;
  }
  return ca.length - cb.length;
}

/**
 * encoding/json floatEncoder: 'f' format, or 'e' below 1e-6 and from 1e21 with the exponent's
 * leading zero dropped (1e-07 -> 1e-7); the same thresholds and shapes as JavaScript's
 * Number#toString. (-0 never gets here: it is whole, and JSON `-0` decodes to int64 0.)
 */
function jsonFloat(f: number): string {
  if (!Number.isFinite(f)) return goFloat(f); // json.Marshal fails on these; never decoded
  return String(f);
}

/**
 * encoding/json's string encoder with HTML escaping (json.Marshal's default): `"` and `\`
 * backslashed, \b \f \n \r \t short forms, other control bytes and `<` `>` `&` as \u00xx, U+2028
 * and U+2029 escaped, invalid UTF-8 (here: lone surrogates) as \ufffd.
 */
function jsonString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    switch (ch) {
      case '"':
        out += '\\"';
        continue;
      case '\\':
        out += '\\\\';
        continue;
      case '\b':
        out += '\\b';
        continue;
      case '\f':
        out += '\\f';
        continue;
      case '\n':
        out += '\\n';
        continue;
      case '\r':
        out += '\\r';
        continue;
      case '\t':
        out += '\\t';
        continue;
    }
    if (cp < 0x20 || ch === '<' || ch === '>' || ch === '&') {
      out += `\\u00${cp.toString(16).padStart(2, '0')}`;
    } else if (cp === 0x2028 || cp === 0x2029) {
      out += `\\u${cp.toString(16)}`;
    } else if (cp >= 0xd800 && cp <= 0xdfff) {
      out += '\\ufffd';
    } else {
      out += ch;
    }
  }
  return `${out}"`;
}
