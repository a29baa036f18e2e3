// agents.x-k8s.io/v1alpha1 Sandbox (spec §3.3): served for old clients, converted to v1beta1 for storage.
import type { ObjectMeta } from '@agent-sandbox/kube-types';
import { Type, type Static } from '@sinclair/typebox';
import { PodTemplateSchema, ServiceFieldSchema, VolumeClaimTemplatesSchema } from '../blueprint.ts';
import { Int32, rootProperties } from '../schema.ts';
import { sandboxStatusCommon, shutdownProperties } from '../v1beta1/sandbox.ts';

export const SandboxSpecSchema = Type.Object(
  {
    ...shutdownProperties,
    podTemplate: PodTemplateSchema,
    replicas: Type.Optional(
      Int32({
        default: 1,
        minimum: 0,
        maximum: 1,
        description: 'Whether the sandbox runs: 1 runs it, 0 suspends it.',
      }),
    ),
    service: Type.Optional(ServiceFieldSchema),
    volumeClaimTemplates: Type.Optional(VolumeClaimTemplatesSchema),
  },
  { description: 'The desired state of a Sandbox.' },
);
export type SandboxSpec = Static<typeof SandboxSpecSchema>;

export const SandboxStatusSchema = Type.Object(
  {
    ...sandboxStatusCommon,
    replicas: Type.Optional(
      Int32({ minimum: 0, description: 'How many Pods back the sandbox (0 or 1).' }),
    ),
  },
  { description: 'The observed state of a Sandbox.' },
);
export type SandboxStatus = Static<typeof SandboxStatusSchema>;

export const SandboxSchema = Type.Object(
  { ...rootProperties(), spec: SandboxSpecSchema, status: Type.Optional(SandboxStatusSchema) },
  { description: 'An isolated, stateful, singleton workload with a stable identity.' },
);

export interface Sandbox extends Static<typeof SandboxSchema> {
  metadata: ObjectMeta;
}
