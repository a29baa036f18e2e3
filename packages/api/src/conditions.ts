// Condition types and reasons (spec §8), as `as const` objects (STYLE naming rule 7).
export const SandboxConditionType = {
  Ready: 'Ready',
  Suspended: 'Suspended',
  Finished: 'Finished',
  PodScheduled: 'PodScheduled',
} as const;

export const SandboxReason = {
  // Suspended
  NotSuspended: 'NotSuspended',
  PodStateUnknown: 'PodStateUnknown',
  PodTerminated: 'PodTerminated',
  PodNotOwned: 'PodNotOwned',
  PodTerminating: 'PodTerminating',
  /** Deprecated v1alpha1 constant, never emitted. */
  PodNotTerminated: 'PodNotTerminated',
  // Finished and Ready
  PodSucceeded: 'PodSucceeded',
  PodFailed: 'PodFailed',
  // PodScheduled
  PodScheduled: 'PodScheduled',
  PodSchedulingUnknown: 'PodSchedulingUnknown',
  // Ready
  MultiplePods: 'MultiplePods',
  ReconcilerError: 'ReconcilerError',
  SandboxSuspended: 'SandboxSuspended',
  DependenciesNotReady: 'DependenciesNotReady',
  DependenciesReady: 'DependenciesReady',
  SandboxExpired: 'SandboxExpired',
} as const;

export const SandboxClaimConditionType = { Ready: 'Ready', Finished: 'Finished' } as const;

export const SandboxClaimReason = {
  TemplateNotFound: 'TemplateNotFound',
  WarmPoolNotFound: 'WarmPoolNotFound',
  AdoptionConflict: 'AdoptionConflict',
  SandboxCreatePending: 'SandboxCreatePending',
  InvalidMetadata: 'InvalidMetadata',
  EnvVarsInjectionRejected: 'EnvVarsInjectionRejected',
  ClaimExpired: 'ClaimExpired',
  VolumeClaimTemplatesError: 'VolumeClaimTemplatesError',
  ReconcilerError: 'ReconcilerError',
  SandboxMissing: 'SandboxMissing',
  SandboxExpired: 'SandboxExpired',
  SandboxNotReady: 'SandboxNotReady',
} as const;

export type SandboxReason = (typeof SandboxReason)[keyof typeof SandboxReason];
export type SandboxClaimReason = (typeof SandboxClaimReason)[keyof typeof SandboxClaimReason];
