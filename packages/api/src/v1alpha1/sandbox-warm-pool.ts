// extensions.agents.x-k8s.io/v1alpha1 SandboxWarmPool (spec §6.2): replicas required, no observedGeneration.
import type { ObjectMeta } from '@agent-sandbox/kube-types';
import { Type, type Static } from '@sinclair/typebox';
import { Int32, rootProperties } from '../schema.ts';
import { warmPoolCommonSpec, warmPoolStatusCommon } from '../v1beta1/sandbox-warm-pool.ts';

export const SandboxWarmPoolSpecSchema = Type.Object(
  {
    ...warmPoolCommonSpec,
    replicas: Int32({ minimum: 0, description: 'How many sandboxes to keep warm.' }),
  },
  { description: 'The desired state of a SandboxWarmPool.' },
);
export type SandboxWarmPoolSpec = Static<typeof SandboxWarmPoolSpecSchema>;

export const SandboxWarmPoolStatusSchema = Type.Object(warmPoolStatusCommon, {
  description: 'The observed state of a SandboxWarmPool.',
});

export const SandboxWarmPoolSchema = Type.Object(
  {
    ...rootProperties(),
    spec: SandboxWarmPoolSpecSchema,
    status: Type.Optional(SandboxWarmPoolStatusSchema),
  },
  { description: 'A pool of pre-warmed sandboxes.' },
);

export interface SandboxWarmPool extends Static<typeof SandboxWarmPoolSchema> {
  metadata: ObjectMeta;
}
