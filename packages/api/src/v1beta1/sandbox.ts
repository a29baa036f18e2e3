// agents.x-k8s.io/v1beta1 Sandbox (spec §3.1–3.2): the storage version.
import type { ObjectMeta } from '@agent-sandbox/kube-types';
import { Type, type Static } from '@sinclair/typebox';
import { blueprintProperties } from '../blueprint.ts';
import { ConditionsSchema } from '../meta.ts';
import { DateTime, rootProperties, StringEnum } from '../schema.ts';

export const OperatingMode = { Running: 'Running', Suspended: 'Suspended' } as const;
export type OperatingMode = (typeof OperatingMode)[keyof typeof OperatingMode];

export const SandboxShutdownPolicy = { Delete: 'Delete', Retain: 'Retain' } as const;
export type SandboxShutdownPolicy =
  (typeof SandboxShutdownPolicy)[keyof typeof SandboxShutdownPolicy];

export const shutdownProperties = {
  shutdownPolicy: Type.Optional(
    StringEnum(['Delete', 'Retain'] as const, {
      default: 'Retain',
      description:
        'What happens to the Sandbox object at shutdownTime: Delete removes it, Retain keeps it. The Pod and Service are removed either way.',
    }),
  ),
  shutdownTime: Type.Optional(
    DateTime({ description: 'The instant the sandbox expires. Unset means it never expires.' }),
  ),
};

export const VOLUME_CLAIM_TEMPLATES_IMMUTABLE_RULE =
  'has(self.volumeClaimTemplates) == has(oldSelf.volumeClaimTemplates) && (!has(self.volumeClaimTemplates) || self.volumeClaimTemplates == oldSelf.volumeClaimTemplates)';

export const SandboxSpecSchema = Type.Object(
  {
    ...blueprintProperties,
    ...shutdownProperties,
    operatingMode: Type.Optional(
      StringEnum(['Running', 'Suspended'] as const, {
        default: 'Running',
        description:
          'The desired state: Running keeps a Pod; Suspended deletes the Pod and keeps the Sandbox, its PersistentVolumeClaims and Service.',
      }),
    ),
  },
  {
    description: 'The desired state of a Sandbox.',
    'x-kubernetes-validations': [
      { message: 'volumeClaimTemplates is immutable', rule: VOLUME_CLAIM_TEMPLATES_IMMUTABLE_RULE },
    ],
  },
);
export type SandboxSpec = Static<typeof SandboxSpecSchema>;

export const sandboxStatusCommon = {
  conditions: Type.Optional(ConditionsSchema),
  podIPs: Type.Optional(
    Type.Array(Type.String(), { description: 'The IP addresses of the Pod backing the sandbox.' }),
  ),
  selector: Type.Optional(
    Type.String({ description: 'The label selector of the Pod backing the sandbox.' }),
  ),
  service: Type.Optional(
    Type.String({
      description: 'The name of the headless Service of the sandbox, when it has one.',
    }),
  ),
  serviceFQDN: Type.Optional(
    Type.String({ description: 'The fully qualified DNS name of that Service.' }),
  ),
};

export const SandboxStatusSchema = Type.Object(
  {
    ...sandboxStatusCommon,
    nodeName: Type.Optional(
      Type.String({ description: 'The node the Pod backing the sandbox runs on.' }),
    ),
  },
  { description: 'The observed state of a Sandbox.' },
);
export type SandboxStatus = Static<typeof SandboxStatusSchema>;

export const SandboxSchema = Type.Object(
  {
    ...rootProperties(),
    spec: SandboxSpecSchema,
    status: Type.Optional(SandboxStatusSchema),
  },
  { description: 'An isolated, stateful, singleton workload with a stable identity.' },
);

export interface Sandbox extends Static<typeof SandboxSchema> {
  metadata: ObjectMeta;
}
