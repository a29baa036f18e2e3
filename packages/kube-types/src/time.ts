// The text forms of metav1.Time and metav1.MicroTime, the one copy every package uses (the
// controllers' conditions and events, the API server's protobuf decoding).

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

/**
 * `2026-01-02T03:04:05Z` (metav1.Time) from Unix seconds, or with `micros` six fractional digits
 * (metav1.MicroTime, RFC3339Micro). Years are four digits with a sign before zero, as Go prints
 * them, so Go's zero time (year 1) reads `0001-01-01T00:00:00Z`.
 */
export function formatUnixTime(seconds: number, micros?: number): string {
  const d = new Date(seconds * 1000);
  const year = d.getUTCFullYear();
  const base =
    `${year < 0 ? '-' : ''}${pad(Math.abs(year), 4)}-${pad(d.getUTCMonth() + 1, 2)}-` +
    `${pad(d.getUTCDate(), 2)}T${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:` +
    pad(d.getUTCSeconds(), 2);
  return micros === undefined ? `${base}Z` : `${base}.${pad(micros, 6)}Z`;
}

function epochMs(at: Date | number): number {
  return typeof at === 'number' ? at : at.getTime();
}

// metav1.MicroTime: RFC 3339 UTC with exactly six fractional digits (semantics §0). The real
// apiserver rejects a Lease renewTime with three ("cannot parse .525Z as .000000").
export function formatMicroTime(at: Date | number): string {
  const ms = epochMs(at);
  const seconds = Math.floor(ms / 1000);
  return formatUnixTime(seconds, (ms - seconds * 1000) * 1000);
}

/** metav1.Time: RFC 3339 UTC with whole seconds. */
export function formatTime(at: Date | number): string {
  return formatUnixTime(Math.floor(epochMs(at) / 1000));
}

/** Parses Time or MicroTime; NaN for a missing or malformed value. */
export function parseTime(value: string | undefined): number {
  return value === undefined ? Number.NaN : Date.parse(value);
}
