// The least privilege our controller manager runs with: ClusterRoles equal to or narrower than
// upstream's kubebuilder-generated ones (../shared/upstream/rbac/, compared in a test), a
// ServiceAccount in agent-sandbox-system and the bindings, as `agent-sandbox manifests rbac`
// prints them. Sandboxes' own ServiceAccounts get nothing: no binding names them.
import { stringify } from 'yaml';

export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  resourceNames?: string[];
  verbs: string[];
}

export type ClusterRoleManifest = {
  apiVersion: 'rbac.authorization.k8s.io/v1';
  kind: 'ClusterRole';
  metadata: { name: string; labels?: Record<string, string> };
  rules: PolicyRule[];
};

/** Where the controller manager runs and which ServiceAccount it uses. */
export const CONTROLLER_NAMESPACE = 'agent-sandbox-system';
export const CONTROLLER_SERVICE_ACCOUNT = 'agent-sandbox-controller';
export const CONTROLLER_ROLE = 'agent-sandbox-controller';
/** The controller manager's user where it runs without a ServiceAccount (the embedded mode). */
export const CONTROLLER_MANAGER_USER = 'agent-sandbox:controller-manager';
export const EXTENSIONS_ROLE = 'agent-sandbox-controller-extensions';

const CHILD_VERBS = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];
const OUR_CRDS = [
  'sandboxclaims.extensions.agents.x-k8s.io',
  'sandboxes.agents.x-k8s.io',
  'sandboxtemplates.extensions.agents.x-k8s.io',
  'sandboxwarmpools.extensions.agents.x-k8s.io',
];

/**
 * The Sandbox controller: its children (Pod, Service, PVCs), Events, Sandboxes and their status,
 * leader election, and our CRDs' conversion webhook clientConfig. It creates no Sandbox.
 */
export const CONTROLLER_CLUSTER_ROLE: ClusterRoleManifest = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRole',
  metadata: { name: CONTROLLER_ROLE },
  rules: [
    {
      apiGroups: [''],
      resources: ['persistentvolumeclaims', 'pods', 'services'],
      verbs: CHILD_VERBS,
    },
    { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
    {
      apiGroups: ['agents.x-k8s.io'],
      resources: ['sandboxes'],
      verbs: ['delete', 'get', 'list', 'patch', 'update', 'watch'],
    },
    {
      apiGroups: ['agents.x-k8s.io'],
      resources: ['sandboxes/finalizers', 'sandboxes/status'],
      verbs: ['get', 'patch', 'update'],
    },
    {
      apiGroups: ['apiextensions.k8s.io'],
      resources: ['customresourcedefinitions'],
      resourceNames: OUR_CRDS,
      verbs: ['get', 'patch', 'update'],
    },
    {
      apiGroups: ['coordination.k8s.io'],
      resources: ['leases'],
      verbs: ['create', 'get', 'list', 'patch', 'update', 'watch'],
    },
  ],
};

/** The extension controllers (SandboxClaim, SandboxTemplate, SandboxWarmPool). */
export const EXTENSIONS_CLUSTER_ROLE: ClusterRoleManifest = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRole',
  metadata: { name: EXTENSIONS_ROLE },
  rules: [
    { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'patch', 'update', 'watch'] },
    {
      apiGroups: ['', 'events.k8s.io'],
      resources: ['events'],
      verbs: ['create', 'patch', 'update'],
    },
    { apiGroups: ['agents.x-k8s.io'], resources: ['sandboxes'], verbs: CHILD_VERBS },
    { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: CHILD_VERBS },
    {
      apiGroups: ['extensions.agents.x-k8s.io'],
      resources: ['sandboxclaims', 'sandboxtemplates', 'sandboxwarmpools'],
      verbs: CHILD_VERBS,
    },
    {
      apiGroups: ['extensions.agents.x-k8s.io'],
      resources: [
        'sandboxclaims/finalizers',
        'sandboxclaims/status',
        'sandboxtemplates/finalizers',
        'sandboxwarmpools/finalizers',
        'sandboxwarmpools/status',
      ],
      verbs: ['get', 'patch', 'update'],
    },
    { apiGroups: ['networking.k8s.io'], resources: ['networkpolicies'], verbs: CHILD_VERBS },
  ],
};

/** ClusterRoleBinding of `role` to the controller's ServiceAccount. */
export function controllerBinding(role: string): Record<string, unknown> {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: role },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects: [
      { kind: 'ServiceAccount', name: CONTROLLER_SERVICE_ACCOUNT, namespace: CONTROLLER_NAMESPACE },
    ],
  };
}

/**
 * Everything the controller manager's identity needs, in apply order: namespace, ServiceAccount,
 * ClusterRoles, ClusterRoleBindings (with `extensions`, the extension controllers' role too).
 */
export function controllerRbacManifests(
  options: { extensions?: boolean } = {},
): Record<string, unknown>[] {
  const roles = options.extensions
    ? [CONTROLLER_CLUSTER_ROLE, EXTENSIONS_CLUSTER_ROLE]
    : [CONTROLLER_CLUSTER_ROLE];
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: CONTROLLER_NAMESPACE } },
    {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: CONTROLLER_SERVICE_ACCOUNT, namespace: CONTROLLER_NAMESPACE },
    },
    ...roles,
    ...roles.map((r) => controllerBinding(r.metadata.name)),
  ];
}

/** The manifests as one multi-document YAML stream (`agent-sandbox manifests rbac`). */
export function renderRbacYaml(options: { extensions?: boolean } = {}): string {
  return controllerRbacManifests(options)
    .map((doc) => `---\n${stringify(doc, { lineWidth: 0, aliasDuplicateObjects: false })}`)
    .join('');
}
