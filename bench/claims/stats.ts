// Percentiles of a sample and from a Prometheus histogram's bucket deltas.
import { parseSamples } from '../controller/prom.ts';

export interface Percentiles {
  n: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export function percentiles(values: readonly number[]): Percentiles | undefined {
  if (values.length === 0) return undefined;
  const s = [...values].sort((a, b) => a - b);
  const at = (q: number): number => s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)] ?? 0;
  const r = (v: number): number => Math.round(v * 10) / 10;
  return {
    n: s.length,
    p50: r(at(0.5)),
    p90: r(at(0.9)),
    p99: r(at(0.99)),
    max: r(s[s.length - 1] ?? 0),
  };
}

/** Cumulative bucket counts (`le` → count) of a histogram, summed over its label sets. */
export function buckets(text: string, family: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const s of parseSamples(text, [`${family}_bucket`])) {
    const le = s.labels['le'] === '+Inf' ? Infinity : Number(s.labels['le']);
    out.set(le, (out.get(le) ?? 0) + s.value);
  }
  return out;
}

/** The upper bound of the bucket holding quantile q of the observations between two scrapes. */
export function histogramQuantile(
  before: Map<number, number>,
  after: Map<number, number>,
  q: number,
): number | undefined {
  const les = [...after.keys()].sort((a, b) => a - b);
  const total = (after.get(Infinity) ?? 0) - (before.get(Infinity) ?? 0);
  if (total <= 0) return undefined;
  for (const le of les) {
    if ((after.get(le) ?? 0) - (before.get(le) ?? 0) >= q * total) return le;
  }
  return Infinity;
}
