// @agent-sandbox/controllers: the agent-sandbox reconcilers. The Sandbox reconciler's pure logic
// (desired objects, decisions, conditions, status, expiry) is exported for the I/O reconciler.
export { ControllersError, MultiplePodsError, type ControllersErrorCode } from './errors.ts';
export {
  checkOwnership,
  controllerOf,
  groupOf,
  isAdoptable,
  isOwnedBySandbox,
  notAdoptableError,
  ownedByOtherError,
  resolvePodName,
  sandboxOwnedPods,
  sandboxOwnerReference,
  withControllerReference,
  type ChildKind,
  type HasMetadata,
  type Ownership,
} from './sandbox/ownership.ts';
export {
  SANDBOX_FIELD_OWNER,
  desiredPod,
  desiredPodMetadataOnExisting,
  extensionPodLabels,
  isSystemAnnotation,
  isSystemLabel,
  mergeVolumeClaimVolumes,
  podMetadataPatch,
  volumeClaimVolumes,
  type PodMetadataPatch,
  type PodMetadataPatchOptions,
} from './sandbox/desired-pod.ts';
export {
  desiredService,
  serviceAction,
  serviceFQDN,
  servicePortsEqual,
  servicePortsForSandbox,
  type ServiceAction,
  type ServicePatch,
} from './sandbox/desired-service.ts';
export {
  desiredPvc,
  desiredPvcs,
  pvcAction,
  pvcActions,
  pvcName,
  type PvcAction,
} from './sandbox/desired-pvcs.ts';
export {
  computeConditionInputs,
  computeConditions,
  computeFinishedCondition,
  computePodScheduledCondition,
  computeReadyCondition,
  computeSuspendedCondition,
  findCondition,
  formatTime,
  joinErrorMessages,
  removeStatusCondition,
  setStatusCondition,
  type ConditionInput,
  type ObservedChildren,
} from './sandbox/conditions.ts';
export {
  DEFAULT_CLUSTER_DOMAIN,
  computeStatus,
  isStatusWriteNeeded,
  sandboxSelector,
  statusEqual,
  statusMergePatch,
  type ComputeStatusOptions,
} from './sandbox/status.ts';
export {
  EXPIRED_REQUEUE_MS,
  MIN_EXPIRY_REQUEUE_MS,
  checkSandboxExpiry,
  expiredStatus,
  expiryAfterReconcile,
  expiryPhase,
  expiryTeardown,
  isMarkedExpired,
  markExpiredConditions,
  type ExpiryPhase,
  type ExpiryTeardown,
  type SandboxExpiry,
} from './sandbox/expiry.ts';
export {
  planExistingPod,
  planPod,
  podNameAnnotationPatch,
  type PodNameAnnotationChange,
  type PodObservation,
  type PodPlan,
  type PodWrite,
} from './sandbox/pod-plan.ts';
export {
  observedChildren,
  planSandbox,
  returnedErrors,
  type PlanOutcome,
  type SandboxPlan,
  type SandboxReads,
} from './sandbox/plan.ts';
export { reconcileSpanAttributes } from './sandbox/plan.ts';
export { podCacheTransform, sandboxCacheTransforms } from './sandbox/pod-cache-transform.ts';
export {
  WRITE_BEHIND_FLUSH_BOUND_MS,
  WriteBehindClock,
  isDeferrable,
  writeBehindDecision,
  writeBehindWindowMs,
  type WriteBehindDecision,
} from './sandbox/write-behind.ts';
export {
  expireAt,
  finishedCondition,
  finishedTime,
  needsCleanup,
  timeLeft,
  type TimeLeft,
} from './lifecycle.ts';
export {
  POD_NAME_HASH_INDEX,
  SANDBOXES,
  SandboxReconciler,
  type SandboxReconcilerOptions,
} from './sandbox/sandbox-reconciler.ts';
export {
  DEFAULT_SANDBOX_CONCURRENCY,
  SANDBOX_CONTROLLER_NAME,
  sandboxController,
  type SandboxControllerOptions,
} from './sandbox/sandbox-controller.ts';
export {
  SANDBOX_EVENT_COMPONENT,
  recordSandboxEvent,
  sandboxEvent,
  type SandboxEvent,
} from './sandbox/events.ts';
export {
  AgentSandboxMetrics,
  CLAIM_STARTUP_BUCKETS_MS,
  CREATION_BUCKETS_MS,
  normalizeCreatedBy,
  sandboxGaugeLabels,
  type AgentSandboxMetricsOptions,
  type BuildInfo,
  type SandboxForMetrics,
  type SandboxGaugeLabel,
} from './metrics.ts';
export {
  CONVERSION_REVIEW_VERSIONS,
  ConversionReviewError,
  reviewConversion,
  type ConversionResult,
  type ConversionReviewResponse,
  type ConversionReviewVersion,
  type ReviewConversionOptions,
} from './webhook/conversion-review.ts';
export {
  NETWORK_POLICIES,
  SANDBOX_CLAIMS,
  SANDBOX_TEMPLATES,
  SANDBOX_WARM_POOLS,
} from './extensions/resources.ts';
export type { Permission } from './extensions/permissions.ts';
export {
  EXTENSION_CONTROLLER_NAMES,
  extensionControllers,
  type ExtensionControllersOptions,
} from './extensions/extension-controllers.ts';
export { blueprintHash, blueprintMatches, withSecureDefaults } from './extensions/blueprint.ts';
export {
  desiredNetworkPolicySpec,
  networkPolicyDecision,
  networkPolicyName,
  type NetworkPolicyDecision,
} from './sandbox-template/network-policy.ts';
export { SANDBOX_TEMPLATE_PERMISSIONS } from './sandbox-template/sandbox-template-reconciler.ts';
export {
  SANDBOX_TEMPLATE_CONTROLLER_NAME,
  sandboxTemplateController,
  type SandboxTemplateControllerOptions,
} from './sandbox-template/sandbox-template-controller.ts';
export { WarmPoolExpectations } from './sandbox-warm-pool/expectations.ts';
export {
  planPool,
  slowStartBatches,
  type PoolPlan,
  type PoolReads,
} from './sandbox-warm-pool/plan.ts';
export {
  DEFAULT_MAX_BATCH_SIZE,
  SANDBOX_WARM_POOL_PERMISSIONS,
} from './sandbox-warm-pool/sandbox-warm-pool-reconciler.ts';
export {
  SANDBOX_WARM_POOL_CONTROLLER_NAME,
  sandboxWarmPoolController,
  type SandboxWarmPoolControllerOptions,
} from './sandbox-warm-pool/sandbox-warm-pool-controller.ts';
export {
  WarmSandboxQueue,
  nodeSpread,
  type QueueKey,
  type PickStrategy,
} from './warm-queue/warm-queue.ts';
export { ClaimError, type ClaimFailureReason } from './sandbox-claim/claim-errors.ts';
export { computeClaimStatus, claimReadyInput } from './sandbox-claim/claim-status.ts';
export {
  coldSandbox,
  desiredPodTemplateMetadata,
  mergeVolumeClaimTemplates,
  validateAdditionalPodMetadata,
} from './sandbox-claim/claim-sandbox.ts';
export { adoptionPatch, candidateProblem } from './sandbox-claim/adoption.ts';
export { SANDBOX_CLAIM_PERMISSIONS } from './sandbox-claim/sandbox-claim-reconciler.ts';
export {
  DEFAULT_CLAIM_CONCURRENCY,
  SANDBOX_CLAIM_CONTROLLER_NAME,
  sandboxClaimController,
  type SandboxClaimControllerOptions,
} from './sandbox-claim/sandbox-claim-controller.ts';
export {
  LEADER_ELECTION_ID,
  runControllerManager,
  type ControllerManagerOptions,
  type ManagerCompanion,
} from './manager/controller-manager.ts';
export {
  CONTROLLERS,
  CONTROLLER_NAMES,
  isControllerName,
  type ControllerContext,
  type ControllerEntry,
  type ControllerName,
} from './manager/controller-registry.ts';
