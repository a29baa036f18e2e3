// Reads counters out of Prometheus text exposition (what kube-apiserver's and our controller's
// /metrics serve). Only plain samples are needed here: `name{labels} value`; histograms are read
// through their `_count`/`_sum` samples the same way.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Every sample of the families whose name is in `names` (all samples when `names` is empty). */
export function parseSamples(text: string, names: readonly string[] = []): Sample[] {
  const wanted = new Set(names);
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = SAMPLE.exec(line);
    if (!m) continue;
    const name = m[1]!;
    if (wanted.size > 0 && !wanted.has(name)) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(LABEL))
      labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    out.push({ name, labels, value: Number(m[3]) });
  }
  return out;
}

/** Sums `name` over samples that match `where`, grouped by the value of `by` (a label list). */
export function sumBy(
  samples: readonly Sample[],
  name: string,
  by: readonly string[],
  where: (labels: Record<string, string>) => boolean = () => true,
): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of samples) {
    if (s.name !== name || !where(s.labels)) continue;
    const key = by.map((l) => s.labels[l] ?? '').join('/');
    out.set(key, (out.get(key) ?? 0) + s.value);
  }
  return out;
}

/** after − before per key; keys that only appear after count from zero. */
export function delta(
  before: ReadonlyMap<string, number>,
  after: ReadonlyMap<string, number>,
): Map<string, number> {
  const out = new Map<string, number>();
  for (const [k, v] of after) {
    const d = v - (before.get(k) ?? 0);
    if (d !== 0) out.set(k, d);
  }
  return out;
}

export function total(m: ReadonlyMap<string, number>): number {
  let t = 0;
  for (const v of m.values()) t += v;
  return t;
}
