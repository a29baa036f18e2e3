// extensions.agents.x-k8s.io/v1alpha1 SandboxClaim (spec §5.3): names a template and a warm-pool choice.
import type { ObjectMeta } from '@agent-sandbox/kube-types';
import { Type, type Static } from '@sinclair/typebox';
import { rootProperties } from '../schema.ts';
import { SandboxClaimStatusSchema, sandboxClaimCommonSpec } from '../v1beta1/sandbox-claim.ts';

export const SandboxClaimSpecSchema = Type.Object(
  {
    ...sandboxClaimCommonSpec,
    sandboxTemplateRef: Type.Object(
      { name: Type.String({ description: 'Name of the SandboxTemplate in this namespace.' }) },
      { description: 'The template of the sandbox.' },
    ),
    warmpool: Type.Optional(
      Type.String({
        default: 'default',
        description:
          'Which warm pool may serve the claim: none (always a cold start), default (any pool of the template) or a pool name.',
      }),
    ),
  },
  { description: 'The desired state of a SandboxClaim.' },
);
export type SandboxClaimSpec = Static<typeof SandboxClaimSpecSchema>;

export const SandboxClaimSchema = Type.Object(
  {
    ...rootProperties(),
    spec: SandboxClaimSpecSchema,
    status: Type.Optional(SandboxClaimStatusSchema),
  },
  { description: 'A request for a sandbox made from a template.' },
);

export interface SandboxClaim extends Static<typeof SandboxClaimSchema> {
  metadata: ObjectMeta;
}
