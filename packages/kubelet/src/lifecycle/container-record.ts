// One container's life as the node agent tracks it (kubelet-and-oci §1.6), and its rendering
// into a Kubernetes ContainerStatus: pure.
import type { ContainerState, ContainerStatus } from '@agent-sandbox/kube-types';

export interface Terminated {
  exitCode: number;
  reason: string;
  message?: string;
  startedAt: string;
  finishedAt: string;
  containerID: string;
}

export type RunState =
  | { kind: 'waiting'; reason: string; message?: string }
  | { kind: 'running'; startedAt: string }
  | ({ kind: 'terminated' } & Terminated);

export interface ContainerRecord {
  name: string;
  state: RunState;
  lastTerminated?: Terminated;
  restartCount: number;
  ready: boolean;
  started: boolean;
  /** The image as the pod spec names it, normalised. */
  image: string;
  imageID: string;
  containerID: string;
}

/** The reason a terminated container shows (§1.6, containerd's rule for OOM). */
export function terminatedReason(exitCode: number, oomKilled: boolean): string {
  if (oomKilled) return 'OOMKilled';
  return exitCode === 0 ? 'Completed' : 'Error';
}

function terminatedState(t: Terminated): ContainerState {
  return {
    terminated: {
      exitCode: t.exitCode,
      reason: t.reason,
      ...(t.message ? { message: t.message } : {}),
      startedAt: t.startedAt,
      finishedAt: t.finishedAt,
      containerID: t.containerID,
    },
  };
}

export function renderState(s: RunState): ContainerState {
  switch (s.kind) {
    case 'waiting':
      return { waiting: { reason: s.reason, ...(s.message ? { message: s.message } : {}) } };
    case 'running':
      return { running: { startedAt: s.startedAt } };
    case 'terminated':
      return terminatedState(s);
  }
}

export function renderContainerStatus(r: ContainerRecord): ContainerStatus {
  return {
    name: r.name,
    state: renderState(r.state),
    lastState: r.lastTerminated ? terminatedState(r.lastTerminated) : {},
    ready: r.ready,
    restartCount: r.restartCount,
    image: r.image,
    imageID: r.imageID,
    ...(r.containerID ? { containerID: r.containerID } : {}),
    started: r.state.kind === 'running' && r.started,
  };
}

/**
 * The waiting state of a container not created yet (§1.6): `PodInitializing` for an app container
 * of a pod with init containers (`podHasInit`), else `ContainerCreating` — also while the pod's
 * sandbox is retried, as the kubelet reports it: a sandbox that cannot be made is not the
 * container's config error. The kubelet says why only in the FailedCreatePodSandBox Event; the
 * `cause`, when given, is kept as the message too, so `kubectl get -o yaml` and `up`'s progress
 * show it (clients key on the reason).
 */
export function waitingToCreate(podHasInit: boolean, cause?: string): RunState {
  return {
    kind: 'waiting',
    reason: podHasInit ? 'PodInitializing' : 'ContainerCreating',
    ...(cause !== undefined ? { message: sandboxFailure(cause) } : {}),
  };
}

/** The FailedCreatePodSandBox Event's message, as the kubelet words it. */
export function sandboxFailure(cause: string): string {
  return `Failed to create pod sandbox: ${cause}`;
}

/** A record for a container nothing is known about yet (§1.6 defaults). */
export function initialRecord(name: string, image: string, podHasInit: boolean): ContainerRecord {
  return {
    name,
    state: waitingToCreate(podHasInit),
    restartCount: 0,
    ready: false,
    started: false,
    image,
    imageID: '',
    containerID: '',
  };
}

/** Restart back-off: 10 s doubling to 300 s (§1.6); `baseMs` is configurable for tests. */
export function restartBackoffMs(restarts: number, baseMs = 10_000, maxMs = 300_000): number {
  return Math.min(maxMs, baseMs * 2 ** Math.max(0, restarts - 1));
}

/**
 * The wait before retry `failures` + 1 of a Pod's sandbox set-up: `baseMs` doubling to `maxMs`,
 * jittered by ±20% so Pods that failed together (a bridge removed) do not retry in step.
 */
export function sandboxRetryMs(
  failures: number,
  baseMs = 1000,
  maxMs = 30_000,
  random: () => number = Math.random,
): number {
  const delay = Math.min(maxMs, baseMs * 2 ** Math.max(0, failures - 1));
  return Math.round(delay * (0.8 + 0.4 * random()));
}

/** Whether a container that exited with `exitCode` runs again under the pod's restartPolicy. */
export function shouldRestart(policy: string | undefined, exitCode: number): boolean {
  if (policy === 'Never') return false;
  if (policy === 'OnFailure') return exitCode !== 0;
  return true; // Always, the default
}
