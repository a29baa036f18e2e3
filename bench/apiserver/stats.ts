// Percentiles and the result record every workload produces.

export interface LatencySummary {
  p50: number;
  p95: number;
  p99: number;
  min: number;
  max: number;
  mean: number;
  count: number;
}

export interface Result {
  /** e.g. "create configmaps c=8" */
  workload: string;
  target: string;
  /** Operations completed (requests, list traversals or delivered watch events). */
  ops: number;
  /** Operations planned; less than `ops` when the phase hit its time bound. */
  planned: number;
  errors: number;
  firstError?: string;
  seconds: number;
  /** ops / seconds */
  throughput: number;
  unit: string;
  latencyMs: LatencySummary | undefined;
  /** More latency series (watch: from write sent as well as from write ack). */
  extraLatencyMs?: Record<string, LatencySummary | undefined>;
  /** CPU time of the server processes (kube: kube-apiserver + etcd) during the phase, per op. */
  serverCpuMsPerOp?: number;
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))] ?? NaN;
}

export function summarize(values: number[]): LatencySummary | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const round = (x: number): number => Math.round(x * 1000) / 1000;
  return {
    p50: round(percentile(sorted, 50)),
    p95: round(percentile(sorted, 95)),
    p99: round(percentile(sorted, 99)),
    min: round(sorted[0] ?? NaN),
    max: round(sorted[sorted.length - 1] ?? NaN),
    mean: round(sorted.reduce((a, b) => a + b, 0) / sorted.length),
    count: sorted.length,
  };
}
