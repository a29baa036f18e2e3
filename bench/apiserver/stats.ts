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
  /** Throughput of each round when the workload ran in several; `throughput` is their median. */
  roundThroughputs?: number[];
  /** Raw latencies, for merging rounds; dropped before the JSON is written. */
  samplesMs?: number[];
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/**
 * One result from several rounds of a workload on one target: the median round's throughput (so
 * one round disturbed by other load on the machine does not move it), latency percentiles over
 * every operation of every round, and counts summed.
 */
export function mergeRounds(rounds: Result[], cpuSeconds: number | undefined): Result {
  const first = rounds[0];
  if (!first) throw new Error('mergeRounds: no rounds');
  const samples = rounds.flatMap((r) => r.samplesMs ?? []);
  const ops = rounds.reduce((a, r) => a + r.ops, 0);
  const errors = rounds.filter((r) => r.errors > 0);
  const merged: Result = {
    ...first,
    ops,
    planned: rounds.reduce((a, r) => a + r.planned, 0),
    errors: rounds.reduce((a, r) => a + r.errors, 0),
    seconds: Math.round(rounds.reduce((a, r) => a + r.seconds, 0) * 1000) / 1000,
    throughput: Math.round(median(rounds.map((r) => r.throughput)) * 10) / 10,
    latencyMs: rounds.length === 1 ? first.latencyMs : summarize(samples),
  };
  if (rounds.length > 1) merged.roundThroughputs = rounds.map((r) => r.throughput);
  if (errors[0]?.firstError !== undefined) merged.firstError = errors[0].firstError;
  else delete merged.firstError;
  if (cpuSeconds !== undefined && ops > 0)
    merged.serverCpuMsPerOp = Math.round((cpuSeconds * 1e6) / ops) / 1000;
  delete merged.samplesMs;
  return merged;
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
