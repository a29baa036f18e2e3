// The pod's phase and conditions from its containers' records, exactly as the kubelet computes
// them (kubelet-and-oci §1.3–1.5): pure, golden-tested as data in pod-status.test.ts.
import type { Pod, PodCondition, PodStatus } from '@agent-sandbox/kube-types';
import { renderContainerStatus, type ContainerRecord } from './container-record.ts';

export interface PodStatusInput {
  pod: Pod;
  init: readonly ContainerRecord[];
  containers: readonly ContainerRecord[];
  /** The sandbox (network namespace) exists and is configured. */
  sandboxReady: boolean;
  /** All containers stopped for good because the pod is being deleted. */
  terminal: boolean;
  hostIP: string;
  podIPs: readonly string[];
  startTime: string;
  now: string;
}

type Phase = 'Pending' | 'Running' | 'Succeeded' | 'Failed';

function everTerminated(r: ContainerRecord): boolean {
  return r.state.kind === 'terminated' || r.lastTerminated !== undefined;
}

export function computePhase(
  input: Omit<PodStatusInput, 'now' | 'hostIP' | 'podIPs' | 'startTime'>,
): Phase {
  const previous = input.pod.status?.phase;
  if (previous === 'Succeeded' || previous === 'Failed') return previous; // sticky
  const policy = input.pod.spec?.restartPolicy ?? 'Always';
  let pendingInit = 0;
  let failedInit = 0;
  for (const r of input.init) {
    if (r.state.kind === 'terminated' && r.state.exitCode === 0) continue;
    if (r.state.kind === 'terminated') failedInit++;
    else if (r.state.kind === 'waiting' && r.lastTerminated && r.lastTerminated.exitCode !== 0)
      failedInit++;
    else pendingInit++;
  }
  let running = 0;
  let waiting = 0;
  let stopped = 0;
  let succeeded = 0;
  for (const r of input.containers) {
    if (r.state.kind === 'running') running++;
    else if (r.state.kind === 'terminated') {
      stopped++;
      if (r.state.exitCode === 0) succeeded++;
    } else if (r.lastTerminated) stopped++;
    else waiting++;
  }
  const anyStarted = input.containers.some((r) => r.state.kind !== 'waiting' || everTerminated(r));
  if (failedInit > 0 && policy === 'Never') return 'Failed';
  if ((pendingInit > 0 || failedInit > 0) && !anyStarted) return 'Pending';
  if (waiting > 0) return 'Pending';
  if (running > 0) return 'Running';
  if (stopped > 0) {
    if (input.terminal) return stopped === succeeded ? 'Succeeded' : 'Failed';
    if (policy === 'Always') return 'Running';
    if (stopped === succeeded) return 'Succeeded';
    if (policy === 'Never') return 'Failed';
    return 'Running';
  }
  return 'Pending';
}

function condition(type: string, ok: boolean, reason?: string, message?: string): PodCondition {
  return {
    type,
    status: ok ? 'True' : 'False',
    ...(ok || !reason ? {} : { reason }),
    ...(ok || !message ? {} : { message }),
  };
}

function names(rs: readonly ContainerRecord[]): string {
  return `[${rs.map((r) => r.name).join(' ')}]`;
}

export function computeConditions(input: PodStatusInput, phase: Phase): PodCondition[] {
  const { init, containers } = input;
  const anyStarted = containers.some((r) => r.state.kind !== 'waiting' || everTerminated(r));
  const incompleteInit = init.filter(
    (r) => !(r.state.kind === 'terminated' && r.state.exitCode === 0),
  );
  let initialized: PodCondition;
  if (phase === 'Succeeded')
    initialized = { type: 'Initialized', status: 'True', reason: 'PodCompleted' };
  else if (incompleteInit.length === 0 || anyStarted) initialized = condition('Initialized', true);
  else
    initialized = condition(
      'Initialized',
      false,
      'ContainersNotInitialized',
      `containers with incomplete status: ${names(incompleteInit)}`,
    );
  const unready = containers.filter((r) => !r.ready);
  let containersReady: PodCondition;
  if (phase === 'Succeeded')
    containersReady = { type: 'ContainersReady', status: 'False', reason: 'PodCompleted' };
  else if (phase === 'Failed')
    containersReady = { type: 'ContainersReady', status: 'False', reason: 'PodFailed' };
  else if (unready.length === 0) containersReady = condition('ContainersReady', true);
  else
    containersReady = condition(
      'ContainersReady',
      false,
      'ContainersNotReady',
      `containers with unready status: ${names(unready)}`,
    );
  let ready: PodCondition = { ...containersReady, type: 'Ready' };
  if (containersReady.status === 'True') {
    const gates = input.pod.spec?.readinessGates ?? [];
    const existing = input.pod.status?.conditions ?? [];
    const missing = gates.filter(
      (g) => existing.find((c) => c.type === g.conditionType)?.status !== 'True',
    );
    if (missing.length > 0)
      ready = condition(
        'Ready',
        false,
        'ReadinessGatesNotReady',
        `corresponding condition of pod readiness gate "${missing[0]?.conditionType}" does not exist.`,
      );
  }
  return [
    condition('PodReadyToStartContainers', input.sandboxReady && !input.terminal),
    initialized,
    ready,
    containersReady,
    { type: 'PodScheduled', status: 'True' },
  ];
}

const OWNED = new Set([
  'PodReadyToStartContainers',
  'Initialized',
  'Ready',
  'ContainersReady',
  'PodScheduled',
]);

/** Keeps lastTransitionTime of conditions whose status did not change; others get `now`. */
function withTransitions(
  next: PodCondition[],
  previous: readonly PodCondition[],
  now: string,
): PodCondition[] {
  return next.map((c) => {
    const old = previous.find((p) => p.type === c.type);
    const lastTransitionTime =
      old && old.status === c.status && old.lastTransitionTime ? old.lastTransitionTime : now;
    return { ...c, lastTransitionTime };
  });
}

export function computePodStatus(input: PodStatusInput): PodStatus {
  const phase = computePhase(input);
  const previous = input.pod.status?.conditions ?? [];
  const conditions = [
    ...withTransitions(computeConditions(input, phase), previous, input.now),
    ...previous.filter((c) => !OWNED.has(c.type)), // readiness gates, DisruptionTarget: not ours
  ];
  const byName = [...input.containers].sort((a, b) => a.name.localeCompare(b.name));
  return {
    phase,
    conditions,
    hostIP: input.hostIP,
    hostIPs: [{ ip: input.hostIP }],
    ...(input.podIPs.length > 0
      ? { podIP: input.podIPs[0], podIPs: input.podIPs.map((ip) => ({ ip })) }
      : {}),
    startTime: input.startTime,
    ...(input.pod.status?.qosClass ? { qosClass: input.pod.status.qosClass } : {}),
    ...(input.init.length > 0
      ? { initContainerStatuses: input.init.map(renderContainerStatus) }
      : {}),
    containerStatuses: byName.map(renderContainerStatus),
  };
}
