// extensions.agents.x-k8s.io/v1alpha1 SandboxTemplate (spec §4.2): v1beta1 without volumeClaimTemplatesPolicy.
import type { ObjectMeta } from '@agent-sandbox/kube-types';
import { Type, type Static } from '@sinclair/typebox';
import { blueprintProperties } from '../blueprint.ts';
import { rootProperties } from '../schema.ts';
import { templateNetworkProperties } from '../v1beta1/sandbox-template.ts';

export const SandboxTemplateSpecSchema = Type.Object(
  { ...blueprintProperties, ...templateNetworkProperties },
  { description: 'The desired state of a SandboxTemplate.' },
);
export type SandboxTemplateSpec = Static<typeof SandboxTemplateSpecSchema>;

export const SandboxTemplateSchema = Type.Object(
  { ...rootProperties(), spec: SandboxTemplateSpecSchema },
  { description: 'A reusable blueprint for sandboxes.' },
);

export interface SandboxTemplate extends Static<typeof SandboxTemplateSchema> {
  metadata: ObjectMeta;
}
