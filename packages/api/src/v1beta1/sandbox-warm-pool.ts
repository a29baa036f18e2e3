// extensions.agents.x-k8s.io/v1beta1 SandboxWarmPool (spec §6.1): pre-warmed sandboxes of one template.
import type { ObjectMeta } from '@agent-sandbox/kube-types';
import { Type, type Static } from '@sinclair/typebox';
import { Int32, Int64, rootProperties, StringEnum } from '../schema.ts';

export const UpdateStrategyType = { Recreate: 'Recreate', OnReplenish: 'OnReplenish' } as const;
export type UpdateStrategyType = (typeof UpdateStrategyType)[keyof typeof UpdateStrategyType];

export const warmPoolCommonSpec = {
  sandboxTemplateRef: Type.Object(
    { name: Type.String({ description: 'Name of the SandboxTemplate in this namespace.' }) },
    { description: 'The template the pool’s sandboxes are made from.' },
  ),
  updateStrategy: Type.Optional(
    Type.Object(
      {
        type: Type.Optional(
          StringEnum(['Recreate', 'OnReplenish'] as const, {
            default: 'OnReplenish',
            description:
              'Recreate replaces stale members at once; OnReplenish replaces them as they are claimed.',
          }),
        ),
      },
      { description: 'How members are replaced when the template changes.' },
    ),
  ),
};

export const warmPoolStatusCommon = {
  readyReplicas: Type.Optional(Int32({ description: 'Members whose Ready condition is True.' })),
  replicas: Type.Optional(Int32({ description: 'Members that are not terminating.' })),
  selector: Type.Optional(Type.String({ description: 'The label selector of the members.' })),
};

export const SandboxWarmPoolSpecSchema = Type.Object(
  {
    ...warmPoolCommonSpec,
    replicas: Type.Optional(
      Int32({ default: 1, minimum: 0, description: 'How many sandboxes to keep warm.' }),
    ),
  },
  { description: 'The desired state of a SandboxWarmPool.' },
);
export type SandboxWarmPoolSpec = Static<typeof SandboxWarmPoolSpecSchema>;

export const SandboxWarmPoolStatusSchema = Type.Object(
  {
    ...warmPoolStatusCommon,
    observedGeneration: Type.Optional(
      Int64({ minimum: 0, description: 'The metadata.generation this status was computed from.' }),
    ),
  },
  { description: 'The observed state of a SandboxWarmPool.' },
);
export type SandboxWarmPoolStatus = Static<typeof SandboxWarmPoolStatusSchema>;

export const SandboxWarmPoolSchema = Type.Object(
  {
    ...rootProperties(),
    spec: SandboxWarmPoolSpecSchema,
    status: Type.Optional(SandboxWarmPoolStatusSchema),
  },
  { description: 'A pool of pre-warmed sandboxes, ready to be claimed.' },
);

export interface SandboxWarmPool extends Static<typeof SandboxWarmPoolSchema> {
  metadata: ObjectMeta;
}
