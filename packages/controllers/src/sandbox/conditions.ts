// Sandbox conditions (spec §8.1): Suspended, Finished, PodScheduled and Ready, computed every
// non-expired pass and applied with metav1 SetStatusCondition semantics.
import { SandboxConditionType, SandboxReason } from '@agent-sandbox/api';
import type { Condition, v1beta1 } from '@agent-sandbox/api';
import type { Pod, Service } from '@agent-sandbox/kube-types';
import { MultiplePodsError } from '../errors.ts';
import { formatTime } from '@agent-sandbox/kube-types';

type Sandbox = v1beta1.Sandbox;
type ConditionStatus = Condition['status'];

/** What one pass of child reconciliation observed (spec §11.3), the input to the conditions. */
export interface ObservedChildren {
  /**
   * The Pod the pod step settled on: the owned Pod, or in Suspended mode whatever Pod holds the
   * name (possibly foreign); undefined when there is none or the step failed before finding one.
   */
  pod?: Pod | undefined;
  /** The Pod above is controlled by this Sandbox (owner UID, never the label alone). */
  podOwned: boolean;
  /** How many Pods name this Sandbox as controller; more than one fails closed (MultiplePods). */
  ownedPodCount: number;
  /** The pod step failed (lookup, refusal to adopt, a write); with no pod, its state is unknown. */
  podError?: Error | undefined;
  /** The Service in use after the service step (`ServiceAction.inUse`), if any. */
  service?: Service | undefined;
  /** The Service above is controlled by this Sandbox (or was just created or adopted). */
  serviceOwned: boolean;
  /**
   * The service step failed (a refusal or a failed write): `status.service`/`serviceFQDN` are
   * left as they were, as upstream returns before touching them. The error is also in
   * `reconcileErrors`.
   */
  serviceError?: Error | undefined;
  /** Every child error of the pass (PVCs, Pod, Service), in order. */
  reconcileErrors: readonly Error[];
  /** The instant of this pass (injected clock). */
  now: Date;
}

/** A condition before SetStatusCondition gives it a lastTransitionTime. */
export type ConditionInput = Omit<Condition, 'lastTransitionTime'>;

/** metav1.Time on the wire: RFC 3339 with second precision (kube-types' one copy). */

export { formatTime };

function condition(
  sandbox: Sandbox,
  type: string,
  status: ConditionStatus,
  reason: string,
  message: string,
): ConditionInput {
  const out: ConditionInput = { type, status, reason, message };
  if (sandbox.metadata.generation !== undefined) {
    out.observedGeneration = sandbox.metadata.generation;
  }
  return out;
}

function isSuspendedMode(sandbox: Sandbox): boolean {
  return sandbox.spec.operatingMode === 'Suspended';
}

/** `Suspended` (§8.1 table): always computed, never removed (KEP-119). */
export function computeSuspendedCondition(
  sandbox: Sandbox,
  observed: ObservedChildren,
): ConditionInput {
  const c = (status: ConditionStatus, reason: string, message: string): ConditionInput =>
    condition(sandbox, SandboxConditionType.Suspended, status, reason, message);
  if (!isSuspendedMode(sandbox)) {
    return c('False', SandboxReason.NotSuspended, 'Sandbox is not suspended');
  }
  if (observed.pod === undefined && observed.podError !== undefined) {
    return c(
      'Unknown',
      SandboxReason.PodStateUnknown,
      'Pod state is unknown. Sandbox suspension cannot be confirmed',
    );
  }
  if (observed.pod === undefined) {
    return c('True', SandboxReason.PodTerminated, 'Pod has been terminated. Sandbox is suspended');
  }
  if (!observed.podOwned) {
    return c(
      'False',
      SandboxReason.PodNotOwned,
      'Refused to delete pod because it is not owned by this sandbox',
    );
  }
  // Also when the delete failed: the Pod is still there and still ours (§21.1).
  return c('False', SandboxReason.PodTerminating, 'Pod is terminating. Sandbox is suspending');
}

/** `Finished`: only an owned Pod in a terminal phase; otherwise absent. */
export function computeFinishedCondition(
  sandbox: Sandbox,
  observed: ObservedChildren,
): ConditionInput | undefined {
  if (observed.pod === undefined || !observed.podOwned) return undefined;
  switch (observed.pod.status?.phase) {
    case 'Succeeded':
      return condition(
        sandbox,
        SandboxConditionType.Finished,
        'True',
        SandboxReason.PodSucceeded,
        'Pod completed successfully',
      );
    case 'Failed':
      return condition(
        sandbox,
        SandboxConditionType.Finished,
        'True',
        SandboxReason.PodFailed,
        'Pod failed',
      );
    default:
      return undefined;
  }
}

function asConditionStatus(value: string | undefined): ConditionStatus {
  return value === 'True' || value === 'False' ? value : 'Unknown';
}

/** `PodScheduled`: mirrors the owned Pod's condition verbatim; absent without an owned Pod. */
export function computePodScheduledCondition(
  sandbox: Sandbox,
  observed: ObservedChildren,
): ConditionInput | undefined {
  const type = SandboxConditionType.PodScheduled;
  if (observed.pod === undefined && observed.podError !== undefined) {
    return condition(
      sandbox,
      type,
      'Unknown',
      SandboxReason.PodSchedulingUnknown,
      'Pod state is unknown. Pod scheduling cannot be determined',
    );
  }
  if (observed.pod === undefined || !observed.podOwned) return undefined;
  const scheduled = observed.pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
  if (scheduled === undefined) {
    return condition(
      sandbox,
      type,
      'Unknown',
      SandboxReason.PodSchedulingUnknown,
      'Pod has not reported a PodScheduled condition yet',
    );
  }
  const status = asConditionStatus(scheduled.status);
  let reason = scheduled.reason ?? '';
  if (reason === '') {
    // metav1.Condition requires a reason: the scheduler sets none on success.
    reason = status === 'True' ? SandboxReason.PodScheduled : SandboxReason.PodSchedulingUnknown;
  }
  return condition(sandbox, type, status, reason, scheduled.message ?? '');
}

/** The joined text of several errors, as Go's errors.Join renders it (newline-separated). */
export function joinErrorMessages(errors: readonly Error[]): string {
  return errors.map((e) => e.message).join('\n');
}

/** `Ready` (§8.1 precedence: MultiplePods, ReconcilerError, suspended, terminal, dependencies). */
export function computeReadyCondition(
  sandbox: Sandbox,
  observed: ObservedChildren,
): ConditionInput {
  const ready = (status: ConditionStatus, reason: string, message: string): ConditionInput =>
    condition(sandbox, SandboxConditionType.Ready, status, reason, message);
  const multiple =
    observed.reconcileErrors.find((e): e is MultiplePodsError => e instanceof MultiplePodsError) ??
    (observed.ownedPodCount > 1 ? new MultiplePodsError(observed.ownedPodCount) : undefined);
  if (multiple !== undefined) {
    // Only the multiple-pods text: other errors of the pass are left out (§21.1).
    return ready('False', SandboxReason.MultiplePods, multiple.message);
  }
  if (observed.reconcileErrors.length > 0) {
    return ready(
      'False',
      SandboxReason.ReconcilerError,
      `Error seen: ${joinErrorMessages(observed.reconcileErrors)}`,
    );
  }
  const pod = observed.pod;
  if (isSuspendedMode(sandbox)) {
    const message = pod !== undefined ? 'Sandbox is suspending' : 'Sandbox is suspended';
    return ready('False', SandboxReason.SandboxSuspended, message);
  }
  const phase = pod?.status?.phase ?? '';
  if (phase === 'Succeeded') {
    return ready('False', SandboxReason.PodSucceeded, 'Pod completed successfully');
  }
  if (phase === 'Failed') return ready('False', SandboxReason.PodFailed, 'Pod failed');

  let message = 'Pod does not exist';
  let podReady = false;
  if (pod !== undefined) {
    message = `Pod exists with phase: ${phase}`;
    if (phase === 'Running') {
      message = 'Pod is Running but not Ready';
      const readyCondition = pod.status?.conditions?.find((c) => c.type === 'Ready');
      if (readyCondition?.status === 'True') {
        if ((pod.status?.podIPs ?? []).length === 0) {
          message = 'Pod is Ready but has no podIPs yet';
        } else {
          message = 'Pod is Ready';
          podReady = true;
        }
      }
    }
  }
  const service = observed.serviceOwned ? observed.service : undefined;
  const serviceRequired = sandbox.spec.service ?? service !== undefined;
  let serviceReady = true;
  if (serviceRequired) {
    serviceReady = service !== undefined;
    message += serviceReady ? '; Service Exists' : '; Service does not exist';
  }
  if (podReady && serviceReady) {
    return ready('True', SandboxReason.DependenciesReady, message);
  }
  return ready('False', SandboxReason.DependenciesNotReady, message);
}

/** The conditions of one pass, in upstream's order: Suspended, Finished?, PodScheduled?, Ready. */
export function computeConditionInputs(
  sandbox: Sandbox,
  observed: ObservedChildren,
): ConditionInput[] {
  const out: ConditionInput[] = [computeSuspendedCondition(sandbox, observed)];
  const finished = computeFinishedCondition(sandbox, observed);
  if (finished !== undefined) out.push(finished);
  const scheduled = computePodScheduledCondition(sandbox, observed);
  if (scheduled !== undefined) out.push(scheduled);
  out.push(computeReadyCondition(sandbox, observed));
  return out;
}

/** Conditions present only while computed in a pass (§8.1); Suspended is not one of them. */
const PRESENT_WHILE_APPLICABLE: readonly string[] = [
  SandboxConditionType.Finished,
  SandboxConditionType.PodScheduled,
];

/**
 * The Sandbox's next `status.conditions` for a non-expired pass: the computed conditions applied
 * with SetStatusCondition semantics, Finished and PodScheduled removed when not computed, other
 * types left as they are. One condition per type (TestSandboxReconcile_ConditionsDoNotAccumulate).
 */
export function computeConditions(sandbox: Sandbox, observed: ObservedChildren): Condition[] {
  const inputs = computeConditionInputs(sandbox, observed);
  let conditions = [...(sandbox.status?.conditions ?? [])];
  for (const input of inputs) conditions = setStatusCondition(conditions, input, observed.now);
  for (const type of PRESENT_WHILE_APPLICABLE) {
    if (!inputs.some((c) => c.type === type)) conditions = removeStatusCondition(conditions, type);
  }
  return conditions;
}

/**
 * apimachinery meta.SetStatusCondition: a new type is appended with lastTransitionTime = now; an
 * existing one keeps its position and its lastTransitionTime unless `status` flips; reason,
 * message and observedGeneration are always updated. Returns a new array.
 */
export function setStatusCondition(
  conditions: readonly Condition[],
  input: ConditionInput,
  now: Date,
): Condition[] {
  const i = conditions.findIndex((c) => c.type === input.type);
  const existing = conditions[i];
  if (existing === undefined)
    return [...conditions, { ...input, lastTransitionTime: formatTime(now) }];
  const lastTransitionTime =
    existing.status === input.status ? existing.lastTransitionTime : formatTime(now);
  const next: Condition = { ...input, lastTransitionTime };
  if (input.observedGeneration === undefined) delete next.observedGeneration;
  const out = [...conditions];
  out[i] = next;
  return out;
}

/** apimachinery meta.RemoveStatusCondition. Returns a new array. */
export function removeStatusCondition(conditions: readonly Condition[], type: string): Condition[] {
  return conditions.filter((c) => c.type !== type);
}

/** The condition of a type, if present (meta.FindStatusCondition). */
export function findCondition(
  conditions: readonly Condition[] | undefined,
  type: string,
): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}
