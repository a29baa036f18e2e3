// The pod row of kube-apiserver's Table output (pkg/printers/internalversion printPod, 1.32,
// always "wide" on the server): Ready `n/m` counting restartable init containers (sidecars),
// Status from phase → status.reason → SchedulingGated → init container state → the last
// non-running container's waiting/terminated reason → Terminating/Unknown, Restarts with the
// age of the last restart, and the priority-1 IP / Node / Nominated Node / Readiness Gates.
import type { Container, ContainerStatus, Pod, PodCondition } from '@agent-sandbox/kube-types';
import { humanAge, humanDuration, parseRfc3339 } from '../jsonpath/index.ts';
import type { TableCell, TableRowCondition } from './types.ts';

/** metav1.TableRowCondition values printPod attaches to finished pods. */
const SUCCEEDED: TableRowCondition[] = [
  {
    type: 'Completed',
    status: 'True',
    reason: 'Succeeded',
    message: 'The pod has completed successfully.',
  },
];
const FAILED: TableRowCondition[] = [
  { type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' },
];

/** node.NodeUnreachablePodReason */
const NODE_UNREACHABLE_POD_REASON = 'NodeLost';

function isRestartableInitContainer(c: Container | undefined): boolean {
  return c?.restartPolicy === 'Always';
}

function isPodInitializedConditionTrue(conditions: readonly PodCondition[]): boolean {
  const c = conditions.find((x) => x.type === 'Initialized');
  return c?.status === 'True';
}

function hasPodReadyCondition(conditions: readonly PodCondition[]): boolean {
  return conditions.some((c) => c.type === 'Ready' && c.status === 'True');
}

/** Milliseconds of a terminated state's finishedAt, or null (Go's zero time). */
function finishedAt(s: ContainerStatus): number | null {
  const t = s.lastState?.terminated?.finishedAt;
  if (t === undefined) return null;
  return parseRfc3339(t) ?? null;
}

function later(a: number | null, b: number | null): number | null {
  if (b === null) return a;
  if (a === null) return b;
  return b > a ? b : a;
}

export interface PodRow {
  cells: TableCell[];
  conditions?: TableRowCondition[];
}

export function printPod(pod: Pod, now: Date): PodRow {
  const spec = pod.spec ?? { containers: [] };
  const status = pod.status ?? {};
  const conditions = status.conditions ?? [];
  const initStatuses = status.initContainerStatuses ?? [];
  const containerStatuses = status.containerStatuses ?? [];
  const initContainers = spec.initContainers ?? [];

  let restarts = 0;
  let restartableInitContainerRestarts = 0;
  let totalContainers = (spec.containers ?? []).length;
  let readyContainers = 0;
  let lastRestartDate: number | null = null;
  let lastRestartableInitContainerRestartDate: number | null = null;

  const podPhase = status.phase ?? '';
  let reason = podPhase;
  if (status.reason !== undefined && status.reason !== '') reason = status.reason;

  for (const c of conditions) {
    if (c.type === 'PodScheduled' && c.reason === 'SchedulingGated') reason = 'SchedulingGated';
  }

  const row: PodRow = { cells: [] };
  if (podPhase === 'Succeeded') row.conditions = SUCCEEDED;
  else if (podPhase === 'Failed') row.conditions = FAILED;

  const initByName = new Map<string, Container>();
  for (const c of initContainers) {
    initByName.set(c.name, c);
    if (isRestartableInitContainer(c)) totalContainers++;
  }

  let initializing = false;
  for (let i = 0; i < initStatuses.length; i++) {
    const container = initStatuses[i] as ContainerStatus;
    restarts += container.restartCount ?? 0;
    lastRestartDate = later(lastRestartDate, finishedAt(container));
    const restartable = isRestartableInitContainer(initByName.get(container.name));
    if (restartable) {
      restartableInitContainerRestarts += container.restartCount ?? 0;
      lastRestartableInitContainerRestartDate = later(
        lastRestartableInitContainerRestartDate,
        finishedAt(container),
      );
    }
    const terminated = container.state?.terminated;
    const waiting = container.state?.waiting;
    if (terminated !== undefined && terminated.exitCode === 0) continue;
    if (restartable && container.started === true) {
      if (container.ready) readyContainers++;
      continue;
    }
    if (terminated !== undefined) {
      // initialization is failed
      if (terminated.reason === undefined || terminated.reason === '') {
        reason =
          terminated.signal !== undefined && terminated.signal !== 0
            ? `Init:Signal:${terminated.signal}`
            : `Init:ExitCode:${terminated.exitCode}`;
      } else {
        reason = `Init:${terminated.reason}`;
      }
      initializing = true;
    } else if (
      waiting !== undefined &&
      waiting.reason !== undefined &&
      waiting.reason.length > 0 &&
      waiting.reason !== 'PodInitializing'
    ) {
      reason = `Init:${waiting.reason}`;
      initializing = true;
    } else {
      reason = `Init:${i}/${initContainers.length}`;
      initializing = true;
    }
    break;
  }

  if (!initializing || isPodInitializedConditionTrue(conditions)) {
    restarts = restartableInitContainerRestarts;
    lastRestartDate = lastRestartableInitContainerRestartDate;
    let hasRunning = false;
    for (let i = containerStatuses.length - 1; i >= 0; i--) {
      const container = containerStatuses[i] as ContainerStatus;
      restarts += container.restartCount ?? 0;
      lastRestartDate = later(lastRestartDate, finishedAt(container));
      const waiting = container.state?.waiting;
      const terminated = container.state?.terminated;
      if (waiting !== undefined && waiting.reason !== undefined && waiting.reason !== '') {
        reason = waiting.reason;
      } else if (
        terminated !== undefined &&
        terminated.reason !== undefined &&
        terminated.reason !== ''
      ) {
        reason = terminated.reason;
      } else if (terminated !== undefined) {
        reason =
          terminated.signal !== undefined && terminated.signal !== 0
            ? `Signal:${terminated.signal}`
            : `ExitCode:${terminated.exitCode}`;
      } else if (container.ready && container.state?.running !== undefined) {
        hasRunning = true;
        readyContainers++;
      }
    }
    // change pod status back to "Running" if there is at least one container still reporting as "Running" status
    if (reason === 'Completed' && hasRunning) {
      reason = hasPodReadyCondition(conditions) ? 'Running' : 'NotReady';
    }
  }

  const deleting =
    pod.metadata?.deletionTimestamp !== undefined && pod.metadata.deletionTimestamp !== null;
  if (deleting && status.reason === NODE_UNREACHABLE_POD_REASON) {
    reason = 'Unknown';
  } else if (deleting && podPhase !== 'Succeeded' && podPhase !== 'Failed') {
    reason = 'Terminating';
  }

  let restartsText = String(restarts);
  if (restarts !== 0 && lastRestartDate !== null) {
    restartsText = `${restarts} (${humanDuration(now.getTime() - lastRestartDate)} ago)`;
  }

  // v1 → internal conversion fills podIPs from podIP when only the latter is set.
  const podIPs = status.podIPs ?? [];
  const podIP = podIPs.length > 0 ? (podIPs[0]?.ip ?? '') : (status.podIP ?? '');
  const nodeName = spec.nodeName ?? '';
  const nominated = status.nominatedNodeName ?? '';

  let readinessGates = '<none>';
  const gates = spec.readinessGates ?? [];
  if (gates.length > 0) {
    let trueConditions = 0;
    for (const gate of gates) {
      const c = conditions.find((x) => x.type === gate.conditionType);
      if (c?.status === 'True') trueConditions++;
    }
    readinessGates = `${trueConditions}/${gates.length}`;
  }

  row.cells = [
    pod.metadata?.name ?? '',
    `${readyContainers}/${totalContainers}`,
    reason,
    restartsText,
    humanAge(pod.metadata?.creationTimestamp, now),
    podIP === '' ? '<none>' : podIP,
    nodeName === '' ? '<none>' : nodeName,
    nominated === '' ? '<none>' : nominated,
    readinessGates,
  ];
  return row;
}
