// One reconcile pass of a Sandbox as data (spec §11.2–11.3): from what the reconciler read, the
// writes to make in order; from what the writes returned, the observation the status is computed
// from. The I/O reconciler becomes a thin executor: read → planSandbox → execute → observedChildren
// → computeStatus / expiryAfterReconcile → status write.
import {
  Labels,
  SandboxConditionType,
  SandboxReason,
  normalizeCreatedBy,
} from '@agent-sandbox/api';
import type { v1beta1 } from '@agent-sandbox/api';
import type { PersistentVolumeClaim, Pod, Service } from '@agent-sandbox/kube-types';
import { MultiplePodsError } from '../errors.ts';
import { findCondition, type ObservedChildren } from './conditions.ts';
import { pvcActions, type PvcAction } from './desired-pvcs.ts';
import { serviceAction, type ServiceAction } from './desired-service.ts';
import { expiryPhase, expiryTeardown, type ExpiryTeardown } from './expiry.ts';
import { planPod, type PodObservation, type PodPlan } from './pod-plan.ts';

type Sandbox = v1beta1.Sandbox;

/** What the reconciler read for one pass (from its caches). */
export interface SandboxReads {
  /** PVCs found under the names of the volumeClaimTemplates. */
  pvcs: ReadonlyMap<string, PersistentVolumeClaim>;
  /**
   * The tracking-label index and the Pod under the resolved pod name, or the error reading them
   * (then the Pod's state is unknown for this pass, §8.1).
   */
  pods: PodObservation | { readError: Error };
  /** The Service named after the Sandbox, if any. */
  service?: Service | undefined;
}

export type SandboxPlan =
  /** A Sandbox being deleted: nothing to do (children go through garbage collection). */
  | { readonly phase: 'Deleting' }
  /** First expiry pass: persist these conditions only, requeue after `requeueAfterMs`. */
  | Extract<ReturnType<typeof expiryPhase>, { phase: 'MarkExpired' }>
  /** Second expiry pass: delete owned children (and the Sandbox for policy Delete). */
  | { readonly phase: 'Teardown'; readonly teardown: ExpiryTeardown }
  | {
      readonly phase: 'Reconcile';
      /** In template order, stopping after the first refusal. */
      readonly pvcs: PvcAction[];
      readonly pod: PodPlan;
      /** Undefined while the Pod mapping is ambiguous: the Service is left as it is (§11.3.4). */
      readonly service?: ServiceAction;
      /** Record a Warning event `MultiplePods` (action `Reconciling`) with the error text. */
      readonly multiplePodsEvent?: string;
    };

/** The plan of one pass (§11.2 steps 3 and 6, §11.3). */
export function planSandbox(sandbox: Sandbox, reads: SandboxReads, now: Date): SandboxPlan {
  if (sandbox.metadata.deletionTimestamp !== undefined) return { phase: 'Deleting' };
  const expiry = expiryPhase(sandbox, now);
  if (expiry.phase === 'MarkExpired') return expiry;
  if (expiry.phase === 'Teardown') {
    // By the resolved pod name only: the index is not consulted on expiry (§11.7).
    const pod = 'readError' in reads.pods ? undefined : reads.pods.fetchedPod;
    return { phase: 'Teardown', teardown: expiryTeardown(sandbox, pod, reads.service) };
  }
  const pvcs = pvcActions(sandbox, reads.pvcs);
  const pod: PodPlan =
    'readError' in reads.pods
      ? {
          write: { action: 'None' },
          podOwned: false,
          ownedPodCount: 0,
          error: reads.pods.readError,
        }
      : planPod(sandbox, reads.pods);
  if (pod.error instanceof MultiplePodsError) {
    // The event is suppressed while Ready already says MultiplePods (no event storm).
    const ready = findCondition(sandbox.status?.conditions, SandboxConditionType.Ready);
    return ready?.reason === SandboxReason.MultiplePods
      ? { phase: 'Reconcile', pvcs, pod }
      : { phase: 'Reconcile', pvcs, pod, multiplePodsEvent: pod.error.message };
  }
  return { phase: 'Reconcile', pvcs, pod, service: serviceAction(sandbox, reads.service) };
}

/** What executing a Reconcile plan produced. */
export interface PlanOutcome {
  /** A failed PVC create or adoption patch (refusals come from the plan itself). */
  pvcError?: Error | undefined;
  /** A failed Pod write (create, patch, delete) or pod-name annotation patch. */
  podWriteError?: Error | undefined;
  /**
   * The Pod the API server returned for a create. On AlreadyExists the reconciler Gets the Pod,
   * re-plans with `planPod(sandbox, { indexedPods, fetchedPod: existing })`, executes that plan
   * and passes the plan it executed to observedChildren.
   */
  pod?: Pod | undefined;
  /** A failed Service write. */
  serviceWriteError?: Error | undefined;
  /** The Service the API server returned for a create or update. */
  service?: Service | undefined;
  now: Date;
}

/**
 * The observation the status is computed from, after the plan ran (§11.3 steps 3–5). As
 * upstream: a failed Pod write in Running mode leaves no Pod (its state is unknown), while in
 * Suspended mode the Pod is still reported (it is there, terminating or not ours).
 */
export function observedChildren(
  sandbox: Sandbox,
  plan: Extract<SandboxPlan, { phase: 'Reconcile' }>,
  outcome: PlanOutcome,
): ObservedChildren {
  const podError = plan.pod.error ?? outcome.podWriteError;
  const suspended = sandbox.spec.operatingMode === 'Suspended';
  let pod = outcome.pod ?? plan.pod.pod;
  if (outcome.podWriteError !== undefined && !suspended) pod = undefined;

  let service: Service | undefined;
  let serviceError: Error | undefined;
  if (plan.service !== undefined) {
    serviceError = plan.service.action === 'Error' ? plan.service.error : outcome.serviceWriteError;
    service = serviceError === undefined ? (outcome.service ?? plan.service.inUse) : undefined;
  }
  const pvcRefusal = plan.pvcs.find((a) => a.action === 'Error');
  const pvcError = pvcRefusal?.action === 'Error' ? pvcRefusal.error : outcome.pvcError;
  const reconcileErrors = [pvcError, podError, serviceError].filter(
    (e): e is Error => e !== undefined,
  );
  return {
    pod,
    podOwned: pod !== undefined && plan.pod.podOwned,
    ownedPodCount: plan.pod.ownedPodCount,
    podError,
    service,
    serviceOwned: service !== undefined,
    serviceError,
    reconcileErrors,
    now: outcome.now,
  };
}

/**
 * The errors the pass returns (and the controller backs off on): every child error except
 * MultiplePods, which is surfaced in conditions and an event but not returned (no hot loop).
 */
export function returnedErrors(observed: ObservedChildren): Error[] {
  return observed.reconcileErrors.filter((e) => !(e instanceof MultiplePodsError));
}

/**
 * The attributes of the `ReconcileSandbox` span (§11.2 step 2): name, namespace and, when the
 * Sandbox has the label, the normalised created-by (TestReconcile_TracingNormalization).
 */
export function reconcileSpanAttributes(sandbox: Sandbox): Record<string, string> {
  const attributes: Record<string, string> = {
    'sandbox.name': sandbox.metadata.name ?? '',
    'sandbox.namespace': sandbox.metadata.namespace ?? '',
  };
  const labels = sandbox.metadata.labels ?? {};
  if (Object.hasOwn(labels, Labels.CreatedBy)) {
    attributes[Labels.CreatedBy] = normalizeCreatedBy(labels[Labels.CreatedBy]) ?? 'unknown';
  }
  return attributes;
}

/** A span event of the `reconcilePod` span (spec §19.2). */
export interface PodStatusEvent {
  name: 'ExistingPodStatusObserved' | 'NewPodStatusObserved';
  attributes: { 'pod.Name': string; 'pod.Phase': string };
}

/**
 * Which Pod the Pod step observed: the one it just created (`NewPodStatusObserved`, with the
 * server's answer) or one already there (`ExistingPodStatusObserved`); none when there is no Pod.
 */
export function podStatusEvent(
  executed: PodPlan,
  pod: Pod | undefined,
): PodStatusEvent | undefined {
  const created = executed.write.action === 'Create';
  // A create the server did not answer observed nothing (executed.pod is only the desired Pod).
  const observed = created ? pod : (pod ?? executed.pod);
  if (observed === undefined) return undefined;
  return {
    name: created ? 'NewPodStatusObserved' : 'ExistingPodStatusObserved',
    attributes: {
      'pod.Name': observed.metadata?.name ?? '',
      'pod.Phase': observed.status?.phase ?? '',
    },
  };
}

/** The PVC step's error for its span: a refusal in the plan or a failed write. */
export function pvcStepError(
  plan: Extract<SandboxPlan, { phase: 'Reconcile' }>,
  outcome: PlanOutcome,
): Error | undefined {
  const refusal = plan.pvcs.find((a) => a.action === 'Error');
  return refusal?.action === 'Error' ? refusal.error : outcome.pvcError;
}
