// Go `fmt` renderings that appear verbatim in kube-apiserver messages. JSON values reach the
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
 * `%#v` of a decoded JSON value (Go syntax), used for values with no simpler rendering, e.g.
 * list-map duplicate keys: `map[string]interface {}{"name":"a", "port":80}`.
 */
export function goSyntax(v: unknown): string {
  if (v === null || v === undefined) return 'interface {}(nil)';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number') return goNumber(v);
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[]interface {}{${v.map(goSyntax).join(', ')}}`;
  if (typeof v === 'object') {
    // Go's fmt prints map keys sorted.
    const entries = Object.keys(v as Record<string, unknown>)
      .sort()
      .map((k) => `${goQuote(k)}:${goSyntax((v as Record<string, unknown>)[k])}`);
    return `map[string]interface {}{${entries.join(', ')}}`;
  }
  return String(v);
}
