// The kinds the per-kind cases run on: built-ins we serve and our four custom resources, each
// with a valid sample object and a field that an update can change.
export interface KindUnderTest {
  plural: string;
  kind: string;
  /** `/api/v1` or `/apis/<group>/<version>`. */
  prefix: string;
  apiVersion: string;
  custom: boolean;
  /** A valid object of this kind (without name). */
  sample(): Record<string, unknown>;
  /** Changes something outside metadata and status. */
  mutate(obj: Record<string, unknown>): void;
}

const SANDBOX_SPEC = {
  podTemplate: { spec: { containers: [{ name: 'main', image: 'busybox:1.36' }] } },
};

export const KINDS: readonly KindUnderTest[] = [
  {
    plural: 'configmaps',
    kind: 'ConfigMap',
    prefix: '/api/v1',
    apiVersion: 'v1',
    custom: false,
    sample: () => ({ data: { a: '1' } }),
    mutate: (o) => void (o['data'] = { a: '2' }),
  },
  {
    plural: 'secrets',
    kind: 'Secret',
    prefix: '/api/v1',
    apiVersion: 'v1',
    custom: false,
    sample: () => ({ type: 'Opaque', data: { k: 'dg==' } }),
    mutate: (o) => void (o['data'] = { k: 'dzI=' }),
  },
  {
    plural: 'leases',
    kind: 'Lease',
    prefix: '/apis/coordination.k8s.io/v1',
    apiVersion: 'coordination.k8s.io/v1',
    custom: false,
    sample: () => ({ spec: { holderIdentity: 'a', leaseDurationSeconds: 15 } }),
    mutate: (o) => void ((o['spec'] as Record<string, unknown>)['holderIdentity'] = 'b'),
  },
  {
    plural: 'sandboxes',
    kind: 'Sandbox',
    prefix: '/apis/agents.x-k8s.io/v1beta1',
    apiVersion: 'agents.x-k8s.io/v1beta1',
    custom: true,
    sample: () => ({ spec: structuredClone(SANDBOX_SPEC) }),
    mutate: (o) => void ((o['spec'] as Record<string, unknown>)['operatingMode'] = 'Suspended'),
  },
  {
    plural: 'sandboxtemplates',
    kind: 'SandboxTemplate',
    prefix: '/apis/extensions.agents.x-k8s.io/v1beta1',
    apiVersion: 'extensions.agents.x-k8s.io/v1beta1',
    custom: true,
    sample: () => ({ spec: structuredClone(SANDBOX_SPEC) }),
    mutate: (o) =>
      void ((o['spec'] as Record<string, unknown>)['envVarsInjectionPolicy'] = 'Allowed'),
  },
  {
    plural: 'sandboxclaims',
    kind: 'SandboxClaim',
    prefix: '/apis/extensions.agents.x-k8s.io/v1beta1',
    apiVersion: 'extensions.agents.x-k8s.io/v1beta1',
    custom: true,
    sample: () => ({ spec: { warmPoolRef: { name: 'pool' } } }),
    mutate: (o) => void ((o['spec'] as Record<string, unknown>)['warmPoolRef'] = { name: 'other' }),
  },
  {
    plural: 'sandboxwarmpools',
    kind: 'SandboxWarmPool',
    prefix: '/apis/extensions.agents.x-k8s.io/v1beta1',
    apiVersion: 'extensions.agents.x-k8s.io/v1beta1',
    custom: true,
    sample: () => ({ spec: { replicas: 2, sandboxTemplateRef: { name: 'tpl' } } }),
    mutate: (o) => void ((o['spec'] as Record<string, unknown>)['replicas'] = 3),
  },
];

export function objectOf(
  k: KindUnderTest,
  name: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { apiVersion: k.apiVersion, kind: k.kind, metadata: { name, ...extra }, ...k.sample() };
}
