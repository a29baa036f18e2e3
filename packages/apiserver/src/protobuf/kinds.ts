// Which apiVersion/kind pairs travel as protobuf, and the generated.proto message of each.

const CORE = 'k8s.io.api.core.v1';
const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';
const APIEXT = 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1';

const CORE_KINDS = [
  'ConfigMap',
  'Secret',
  'Namespace',
  'Pod',
  'Service',
  'Endpoints',
  'PersistentVolumeClaim',
  'ServiceAccount',
  'Event',
];

const KINDS: Record<string, Record<string, string>> = {
  v1: {
    ...Object.fromEntries(
      CORE_KINDS.flatMap((k) => [
        [k, `${CORE}.${k}`],
        [`${k}List`, `${CORE}.${k}List`],
      ]),
    ),
    Binding: `${CORE}.Binding`,
  },
  'events.k8s.io/v1': {
    Event: 'k8s.io.api.events.v1.Event',
    EventList: 'k8s.io.api.events.v1.EventList',
  },
  'coordination.k8s.io/v1': {
    Lease: 'k8s.io.api.coordination.v1.Lease',
    LeaseList: 'k8s.io.api.coordination.v1.LeaseList',
  },
  'networking.k8s.io/v1': {
    NetworkPolicy: 'k8s.io.api.networking.v1.NetworkPolicy',
    NetworkPolicyList: 'k8s.io.api.networking.v1.NetworkPolicyList',
  },
  'authentication.k8s.io/v1': {
    TokenRequest: 'k8s.io.api.authentication.v1.TokenRequest',
    TokenReview: 'k8s.io.api.authentication.v1.TokenReview',
    SelfSubjectReview: 'k8s.io.api.authentication.v1.SelfSubjectReview',
  },
  'authorization.k8s.io/v1': Object.fromEntries(
    [
      'LocalSubjectAccessReview',
      'SelfSubjectAccessReview',
      'SelfSubjectRulesReview',
      'SubjectAccessReview',
    ].map((k) => [k, `k8s.io.api.authorization.v1.${k}`]),
  ),
  'rbac.authorization.k8s.io/v1': Object.fromEntries(
    ['ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'].flatMap((k) => [
      [k, `k8s.io.api.rbac.v1.${k}`],
      [`${k}List`, `k8s.io.api.rbac.v1.${k}List`],
    ]),
  ),
  'apiextensions.k8s.io/v1': {
    CustomResourceDefinition: `${APIEXT}.CustomResourceDefinition`,
    CustomResourceDefinitionList: `${APIEXT}.CustomResourceDefinitionList`,
  },
};

// meta/v1 option and status kinds are registered in every group version (and in meta.k8s.io/v1).
const META_KINDS: Record<string, string> = {
  DeleteOptions: `${META}.DeleteOptions`,
  Status: `${META}.Status`,
};

/** The generated.proto message for apiVersion/kind, or undefined when it has none here. */
export function messageFor(apiVersion: string, kind: string): string | undefined {
  const meta = META_KINDS[kind];
  if (meta !== undefined && (apiVersion === 'meta.k8s.io/v1' || apiVersion in KINDS)) return meta;
  return KINDS[apiVersion]?.[kind];
}
