// Probe bookkeeping as the kubelet's prober worker does it (kubelet-and-oci §2.4): timing with
// defaults, consecutive-result thresholds, and what a container's ready/started flags become.
// Pure; probe-runner.ts does the I/O and container-prober.ts the scheduling.
import type { Probe } from '@agent-sandbox/kube-types';

export type ProbeKind = 'startup' | 'liveness' | 'readiness';

export interface ProbeTiming {
  initialDelayMs: number;
  periodMs: number;
  timeoutMs: number;
  successThreshold: number;
  failureThreshold: number;
}

/** The probe's timing with kube's defaults (period 10 s, timeout 1 s, thresholds 1 and 3). */
export function probeTiming(p: Probe): ProbeTiming {
  const positive = (v: number | undefined, d: number) => (v !== undefined && v > 0 ? v : d);
  return {
    initialDelayMs: Math.max(0, p.initialDelaySeconds ?? 0) * 1000,
    periodMs: positive(p.periodSeconds, 10) * 1000,
    timeoutMs: positive(p.timeoutSeconds, 1) * 1000,
    successThreshold: positive(p.successThreshold, 1),
    failureThreshold: positive(p.failureThreshold, 3),
  };
}

/** The handler's name, or an error naming the field when it has none or several. */
export function probeHandler(p: Probe, field: string): 'exec' | 'httpGet' | 'tcpSocket' {
  const set = (['exec', 'httpGet', 'tcpSocket', 'grpc'] as const).filter((k) => p[k] !== undefined);
  if (set.length !== 1)
    throw new Error(
      `${field}: exactly one of exec, httpGet, tcpSocket or grpc must be set (found ${set.length === 0 ? 'none' : set.join(', ')})`,
    );
  const h = set[0] as 'exec' | 'httpGet' | 'tcpSocket' | 'grpc';
  if (h === 'grpc')
    throw new Error(
      `${field}.grpc: gRPC probes are not supported by this node; use exec, httpGet or tcpSocket`,
    );
  return h;
}

export interface ProbeState {
  /** The settled result the container's flags follow. */
  result: boolean;
  /** The latest raw outcome and how many times in a row it came. */
  last: boolean | undefined;
  run: number;
  /** failureThreshold failures in a row: for startup and liveness, the container is killed. */
  failedOut: boolean;
}

/** Readiness starts failed, liveness as passed, startup as not yet passed (kube's initial values). */
export function initialProbeState(kind: ProbeKind): ProbeState {
  return { result: kind === 'liveness', last: undefined, run: 0, failedOut: false };
}

/** Folds one outcome in: the result flips only after `threshold` equal outcomes in a row. */
export function observe(s: ProbeState, ok: boolean, t: ProbeTiming): ProbeState {
  const run = s.last === ok ? s.run + 1 : 1;
  const threshold = ok ? t.successThreshold : t.failureThreshold;
  return {
    last: ok,
    run,
    result: run >= threshold ? ok : s.result,
    failedOut: !ok && run >= t.failureThreshold,
  };
}

export type ProbeStates = Partial<Record<ProbeKind, ProbeState>>;

/** Which probes run now: a startup probe that has not passed holds the other two back. */
export function activeProbes(states: ProbeStates): ProbeKind[] {
  if (states.startup && !states.startup.result) return ['startup'];
  return (['liveness', 'readiness'] as const).filter((k) => states[k] !== undefined);
}

/**
 * A running container's `started` and `ready`: started once its startup probe passed (at once
 * without one); ready once started and its readiness probe passed (at once without one).
 */
export function containerFlags(states: ProbeStates): { started: boolean; ready: boolean } {
  const started = states.startup?.result ?? true;
  return { started, ready: started && (states.readiness?.result ?? true) };
}

/** The probe whose failures kill the container now, if any. */
export function unhealthy(states: ProbeStates): 'startup' | 'liveness' | undefined {
  if (states.startup && !states.startup.result)
    return states.startup.failedOut ? 'startup' : undefined;
  return states.liveness?.failedOut ? 'liveness' : undefined;
}
