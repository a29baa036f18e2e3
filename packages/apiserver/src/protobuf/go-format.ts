// Go's text forms for the meta/v1 time types the protobuf codec needs beyond kube-types'
// formatUnixTime: RFC 3339 parsing into seconds and nanoseconds, and metav1.Duration
// (time.Duration.String() and time.ParseDuration).

/** Go's zero time.Time (0001-01-01T00:00:00Z) as Unix seconds. */
export const GO_ZERO_UNIX = -62135596800;

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** Parses RFC 3339 into Unix seconds and nanoseconds; undefined if it is not RFC 3339. */
export function parseTime(text: string): { seconds: number; nanos: number } | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const n = (i: number): number => Number(m[i] ?? '0');
  let seconds = Date.UTC(n(1), n(2) - 1, n(3), n(4), n(5), n(6)) / 1000;
  // Date.UTC maps years 0..99 to 1900..1999
  if (n(1) < 100)
    seconds =
      new Date(0).setUTCFullYear(n(1), n(2) - 1, n(3)) / 1000 + n(4) * 3600 + n(5) * 60 + n(6);
  if (m[9] !== undefined) seconds -= (m[9] === '-' ? -1 : 1) * (n(10) * 3600 + n(11) * 60);
  const nanos = Number((m[7] ?? '').padEnd(9, '0'));
  return { seconds, nanos };
}

const UNITS: [bigint, string][] = [
  [3_600_000_000_000n, 'h'],
  [60_000_000_000n, 'm'],
];

function frac(value: bigint, digits: number): string {
  // value / 10^digits with trailing zeros removed, Go's fmtFrac + fmtInt
  const scale = 10n ** BigInt(digits);
  const whole = value / scale;
  const rest = (value % scale).toString().padStart(digits, '0').replace(/0+$/, '');
  return rest === '' ? whole.toString() : `${whole}.${rest}`;
}

/** Go's time.Duration.String() for a nanosecond count. */
export function formatDuration(nanos: bigint): string {
  if (nanos === 0n) return '0s';
  const neg = nanos < 0n;
  let u = neg ? -nanos : nanos;
  let out: string;
  if (u < 1_000_000_000n) {
    if (u < 1000n) out = `${u}ns`;
    else if (u < 1_000_000n) out = `${frac(u, 3)}µs`;
    else out = `${frac(u, 6)}ms`;
  } else {
    out = '';
    for (const [size, unit] of UNITS) {
      if (u >= size || out !== '') {
        out += `${u / size}${unit}`;
        u %= size;
      }
    }
    out += `${frac(u, 9)}s`;
  }
  return neg ? `-${out}` : out;
}

const DURATION_UNITS: Record<string, number> = {
  ns: 1,
  us: 1e3,
  µs: 1e3,
  μs: 1e3,
  ms: 1e6,
  s: 1e9,
  m: 60e9,
  h: 3600e9,
};

/** Go's time.ParseDuration, in nanoseconds; undefined if it does not parse. */
export function parseDuration(text: string): bigint | undefined {
  if (text === '0') return 0n;
  const m = /^([+-]?)((?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$/.exec(text);
  if (!m) return undefined;
  let total = 0;
  for (const part of text.matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g)) {
    total += Number(part[1]) * (DURATION_UNITS[part[2] ?? ''] ?? 0);
  }
  const ns = BigInt(Math.round(total));
  return m[1] === '-' ? -ns : ns;
}
