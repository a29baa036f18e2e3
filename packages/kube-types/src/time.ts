// The text forms of metav1.Time and metav1.MicroTime, the one copy every package uses.
//
// metav1.MicroTime: RFC 3339 UTC with exactly six fractional digits (semantics §0). The real
// apiserver rejects a Lease renewTime with three ("cannot parse .525Z as .000000").
export function formatMicroTime(at: Date | number): string {
  const d = typeof at === 'number' ? new Date(at) : at;
  const iso = d.toISOString(); // 2025-01-02T03:04:05.678Z
  return `${iso.slice(0, 19)}.${iso.slice(20, 23)}000Z`;
}

/** metav1.Time: RFC 3339 UTC with whole seconds. */
export function formatTime(at: Date | number): string {
  const d = typeof at === 'number' ? new Date(at) : at;
  return `${d.toISOString().slice(0, 19)}Z`;
}

/** Parses Time or MicroTime; NaN for a missing or malformed value. */
export function parseTime(value: string | undefined): number {
  return value === undefined ? Number.NaN : Date.parse(value);
}
