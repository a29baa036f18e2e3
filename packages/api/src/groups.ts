// API groups, versions and kinds (spec §1).
export const SANDBOX_GROUP = 'agents.x-k8s.io';
export const EXTENSIONS_GROUP = 'extensions.agents.x-k8s.io';

/** The version every kind is stored in; v1alpha1 is served and converted. */
export const STORAGE_VERSION = 'v1beta1';
export const SERVED_VERSIONS = ['v1beta1', 'v1alpha1'] as const;
export type ApiVersionName = (typeof SERVED_VERSIONS)[number];

export const Kinds = {
  Sandbox: 'Sandbox',
  SandboxTemplate: 'SandboxTemplate',
  SandboxClaim: 'SandboxClaim',
  SandboxWarmPool: 'SandboxWarmPool',
} as const;
export type KindName = (typeof Kinds)[keyof typeof Kinds];

export const KIND_GROUPS: Record<KindName, string> = {
  Sandbox: SANDBOX_GROUP,
  SandboxTemplate: EXTENSIONS_GROUP,
  SandboxClaim: EXTENSIONS_GROUP,
  SandboxWarmPool: EXTENSIONS_GROUP,
};

/** The exact warning kube-apiserver returns for requests to a deprecated v1alpha1 kind. */
export function deprecationWarning(kind: KindName): string {
  const group = KIND_GROUPS[kind];
  return `${group}/v1alpha1 ${kind} is deprecated; use ${group}/v1beta1 ${kind} instead`;
}
