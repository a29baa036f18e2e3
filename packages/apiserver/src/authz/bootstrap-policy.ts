// The roles and bindings kube-apiserver keeps in every cluster (its RBAC bootstrap policy),
// written as our own table for the resources the embedded server serves and the ones clients
// commonly ask about. `admin`, `edit` and `view` are aggregated from the system:aggregate-to-*
// roles, so CRD authors can extend them by label, as on a cluster.
import type { PolicyRule, RoleRef, Subject } from './policy.ts';

const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'delete', 'deletecollection', 'patch', 'update'];
const ALL_RW = [...WRITE.slice(0, 3), 'get', 'list', 'patch', 'update', 'watch'];

function rule(verbs: string[], groups: string[], resources: string[]): PolicyRule {
  return { verbs, apiGroups: groups, resources };
}
function urls(verbs: string[], paths: string[]): PolicyRule {
  return { verbs, nonResourceURLs: paths };
}

export interface BootstrapClusterRole {
  name: string;
  labels?: Record<string, string>;
  /** Label selectors whose matching ClusterRoles' rules this role is the union of. */
  aggregateFrom?: string;
  rules: PolicyRule[];
}

export interface BootstrapBinding {
  name: string;
  roleRef: RoleRef;
  subjects: Subject[];
}

const AGGREGATE = 'rbac.authorization.k8s.io/aggregate-to-';

const VIEW_RULES: PolicyRule[] = [
  rule(
    READ,
    [''],
    [
      'configmaps',
      'endpoints',
      'persistentvolumeclaims',
      'persistentvolumeclaims/status',
      'pods',
      'replicationcontrollers',
      'replicationcontrollers/scale',
      'serviceaccounts',
      'services',
      'services/status',
    ],
  ),
  rule(
    READ,
    [''],
    [
      'bindings',
      'limitranges',
      'namespaces/status',
      'pods/log',
      'pods/status',
      'replicationcontrollers/status',
      'resourcequotas',
      'resourcequotas/status',
    ],
  ),
  rule(READ, [''], ['namespaces']),
  rule(READ, ['', 'events.k8s.io'], ['events']),
  rule(READ, ['discovery.k8s.io'], ['endpointslices']),
  rule(
    READ,
    ['apps'],
    [
      'controllerrevisions',
      'daemonsets',
      'daemonsets/status',
      'deployments',
      'deployments/scale',
      'deployments/status',
      'replicasets',
      'replicasets/scale',
      'replicasets/status',
      'statefulsets',
      'statefulsets/scale',
      'statefulsets/status',
    ],
  ),
  rule(READ, ['batch'], ['cronjobs', 'cronjobs/status', 'jobs', 'jobs/status']),
  rule(READ, ['networking.k8s.io'], ['ingresses', 'ingresses/status', 'networkpolicies']),
];

const EDIT_RULES: PolicyRule[] = [
  rule(
    READ,
    [''],
    ['pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy', 'secrets', 'services/proxy'],
  ),
  rule(['impersonate'], [''], ['serviceaccounts']),
  rule(WRITE, [''], ['pods', 'pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy']),
  rule(['create'], [''], ['pods/eviction']),
  rule(
    WRITE,
    [''],
    [
      'configmaps',
      'persistentvolumeclaims',
      'replicationcontrollers',
      'replicationcontrollers/scale',
      'secrets',
      'serviceaccounts',
      'services',
      'services/proxy',
    ],
  ),
  rule(['create'], [''], ['serviceaccounts/token']),
  rule(WRITE, ['', 'events.k8s.io'], ['events']),
  rule(
    WRITE,
    ['apps'],
    [
      'daemonsets',
      'deployments',
      'deployments/rollback',
      'deployments/scale',
      'replicasets',
      'replicasets/scale',
      'statefulsets',
      'statefulsets/scale',
    ],
  ),
  rule(WRITE, ['batch'], ['cronjobs', 'jobs']),
  rule(WRITE, ['networking.k8s.io'], ['ingresses', 'networkpolicies']),
  rule(ALL_RW, ['coordination.k8s.io'], ['leases']),
];

const ADMIN_RULES: PolicyRule[] = [
  rule(['create'], ['authorization.k8s.io'], ['localsubjectaccessreviews']),
  rule(ALL_RW, ['rbac.authorization.k8s.io'], ['rolebindings', 'roles']),
];

const DISCOVERY_URLS = [
  '/api',
  '/api/*',
  '/apis',
  '/apis/*',
  '/healthz',
  '/livez',
  '/openapi',
  '/openapi/*',
  '/readyz',
  '/version',
  '/version/',
];

export const BOOTSTRAP_CLUSTER_ROLES: readonly BootstrapClusterRole[] = [
  {
    name: 'cluster-admin',
    rules: [rule(['*'], ['*'], ['*']), urls(['*'], ['*'])],
  },
  { name: 'admin', aggregateFrom: `${AGGREGATE}admin`, rules: [] },
  {
    name: 'edit',
    labels: { [`${AGGREGATE}admin`]: 'true' },
    aggregateFrom: `${AGGREGATE}edit`,
    rules: [],
  },
  {
    name: 'view',
    labels: { [`${AGGREGATE}edit`]: 'true' },
    aggregateFrom: `${AGGREGATE}view`,
    rules: [],
  },
  {
    name: 'system:aggregate-to-admin',
    labels: { [`${AGGREGATE}admin`]: 'true' },
    rules: ADMIN_RULES,
  },
  { name: 'system:aggregate-to-edit', labels: { [`${AGGREGATE}edit`]: 'true' }, rules: EDIT_RULES },
  { name: 'system:aggregate-to-view', labels: { [`${AGGREGATE}view`]: 'true' }, rules: VIEW_RULES },
  { name: 'system:discovery', rules: [urls(['get'], DISCOVERY_URLS)] },
  {
    name: 'system:basic-user',
    rules: [
      rule(
        ['create'],
        ['authorization.k8s.io'],
        ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'],
      ),
      rule(['create'], ['authentication.k8s.io'], ['selfsubjectreviews']),
    ],
  },
  {
    name: 'system:public-info-viewer',
    rules: [urls(['get'], ['/healthz', '/livez', '/readyz', '/version', '/version/'])],
  },
  {
    // Lets workloads discover how to verify service account tokens (OIDC discovery).
    name: 'system:service-account-issuer-discovery',
    rules: [
      urls(
        ['get'],
        [
          '/.well-known/openid-configuration',
          '/.well-known/openid-configuration/',
          '/openid/v1/jwks',
          '/openid/v1/jwks/',
        ],
      ),
    ],
  },
  {
    name: 'system:auth-delegator',
    rules: [
      rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
      rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews']),
    ],
  },
];

const group = (name: string): Subject => ({
  apiGroup: 'rbac.authorization.k8s.io',
  kind: 'Group',
  name,
});
const clusterRole = (name: string): RoleRef => ({
  apiGroup: 'rbac.authorization.k8s.io',
  kind: 'ClusterRole',
  name,
});

export const BOOTSTRAP_CLUSTER_ROLE_BINDINGS: readonly BootstrapBinding[] = [
  {
    name: 'cluster-admin',
    roleRef: clusterRole('cluster-admin'),
    subjects: [group('system:masters')],
  },
  {
    name: 'system:discovery',
    roleRef: clusterRole('system:discovery'),
    subjects: [group('system:authenticated')],
  },
  {
    name: 'system:basic-user',
    roleRef: clusterRole('system:basic-user'),
    subjects: [group('system:authenticated')],
  },
  {
    name: 'system:service-account-issuer-discovery',
    roleRef: clusterRole('system:service-account-issuer-discovery'),
    subjects: [group('system:serviceaccounts')],
  },
  {
    name: 'system:public-info-viewer',
    roleRef: clusterRole('system:public-info-viewer'),
    subjects: [group('system:authenticated'), group('system:unauthenticated')],
  },
];
