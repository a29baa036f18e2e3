// Go's number and duration syntax (strconv.Atoi, time.ParseDuration) for flag values, apart from
// the other Go value parsers (commands/flag-values.ts) so that commander verbs can use them
// without loading what those import. Each throws a message that names no flag: callers add it.

/** Go's strconv.Atoi (base 10, optional sign). */
export function parseInt10(text: string): number {
  if (!/^[+-]?\d+$/.test(text)) throw new Error(`"${text}" is not an integer`);
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new Error(`"${text}" is out of range`);
  return n;
}

const DURATION_UNITS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** Go's time.ParseDuration, in milliseconds ("5m", "1h30m", "300ms", "0"). */
export function parseDurationMs(text: string): number {
  const bad = (): Error =>
    new Error(`"${text}" is not a duration (use a number with a unit, e.g. 300ms, 30s, 5m, 1h)`);
  let rest = text;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    if (rest[0] === '-') sign = -1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') throw bad();
  let total = 0;
  const part = /^(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)/;
  while (rest !== '') {
    const m = part.exec(rest);
    if (!m) throw bad();
    total += Number(m[1]) * (DURATION_UNITS[m[2] as string] ?? 0);
    rest = rest.slice(m[0].length);
  }
  return sign * total;
}
