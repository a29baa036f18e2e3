// Label and annotation keys (spec §9). Wire names: upstream controllers and SDKs read them.
export const Labels = {
  /** hash(sandbox name) on the Pod, Service and PVCs of a sandbox. */
  SandboxNameHash: 'agents.x-k8s.io/sandbox-name-hash',
  /** "true" on a pre-existing Pod/Service/PVC: the Sandbox controller may adopt it. */
  Adoptable: 'agents.x-k8s.io/adoptable',
  /** "cold" or "warm" on a Sandbox. */
  LaunchType: 'agents.x-k8s.io/launch-type',
  /** Who created a claim or sandbox: go-client, python-client, controller (else unknown on the Pod). */
  CreatedBy: 'agents.x-k8s.io/created-by',
  /** hash(pool name) on a pool's Sandboxes (and their Pods while pool-owned). */
  WarmPoolSandbox: 'agents.x-k8s.io/warm-pool-sandbox',
  /** hash(template name) on templates, Sandboxes and Pods. */
  SandboxTemplateRefHash: 'agents.x-k8s.io/sandbox-template-ref-hash',
  /** The blueprint hash of a pool member. */
  SandboxTemplateHash: 'agents.x-k8s.io/sandbox-template-hash',
  /** Deprecated: the pod-template hash of a pool member (informational). */
  SandboxPodTemplateHash: 'agents.x-k8s.io/sandbox-pod-template-hash',
  /** The UID of the claim a Sandbox was made or adopted for. */
  ClaimUid: 'agents.x-k8s.io/claim-uid',
  /** Deprecated label form of Annotations.SandboxName on claims. */
  SandboxName: 'agents.x-k8s.io/sandbox-name',
} as const;

export const Annotations = {
  /** Which Pod backs a Sandbox (defaults to the sandbox name). */
  PodName: 'agents.x-k8s.io/pod-name',
  /** Comma-joined sorted label keys the controller copied from the pod template to the Pod. */
  PropagatedLabels: 'agents.x-k8s.io/propagated-labels',
  /** Comma-joined sorted annotation keys the controller copied from the pod template to the Pod. */
  PropagatedAnnotations: 'agents.x-k8s.io/propagated-annotations',
  /** The template a Sandbox was made from. */
  SandboxTemplateRef: 'agents.x-k8s.io/sandbox-template-ref',
  /** The sandbox a claim adopted. */
  SandboxName: 'agents.x-k8s.io/sandbox-name',
  ControllerFirstObservedAt: 'agents.x-k8s.io/controller-first-observed-at',
  ClaimFirstReadyAt: 'agents.x-k8s.io/claim-first-ready-at',
  ClientFirstRequestedAt: 'agents.x-k8s.io/client-first-requested-at',
  WebhookFirstObservedAt: 'agents.x-k8s.io/webhook-first-observed-at',
  TraceContext: 'opentelemetry.io/trace-context',
  SafeToEvict: 'cluster-autoscaler.kubernetes.io/safe-to-evict',
  MigrationShadow: 'agents.x-k8s.io/migration-shadow',
  MigrationSourceTemplate: 'agents.x-k8s.io/migration-source-template',
  StorageMigratedAt: 'agents.x-k8s.io/storage-migrated-at',
} as const;

/** Prefixes never copied from a user's pod template to the Pod (spec §9). */
export const SYSTEM_PREFIXES = ['agents.x-k8s.io/', 'extensions.agents.x-k8s.io/'] as const;

/** Values of Labels.CreatedBy kept as they are; anything else becomes `unknown` on the Pod. */
export const KNOWN_CREATORS = ['go-client', 'python-client', 'controller'] as const;

export function normalizeCreatedBy(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  return (KNOWN_CREATORS as readonly string[]).includes(value) ? value : 'unknown';
}
