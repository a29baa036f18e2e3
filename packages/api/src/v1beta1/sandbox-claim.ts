// extensions.agents.x-k8s.io/v1beta1 SandboxClaim (spec §5.1–5.2): a request for a sandbox from a warm pool.
import type { ObjectMeta } from '@agent-sandbox/kube-types';
import { Type, type Static } from '@sinclair/typebox';
import { PodMetadataSchema, VolumeClaimTemplatesSchema } from '../blueprint.ts';
import { ConditionsSchema } from '../meta.ts';
import { AtomicList, DateTime, Int32, rootProperties, StringEnum } from '../schema.ts';

export const ClaimShutdownPolicy = {
  Delete: 'Delete',
  DeleteForeground: 'DeleteForeground',
  Retain: 'Retain',
} as const;
export type ClaimShutdownPolicy = (typeof ClaimShutdownPolicy)[keyof typeof ClaimShutdownPolicy];

export const ClaimLifecycleSchema = Type.Object(
  {
    shutdownPolicy: Type.Optional(
      StringEnum(['Delete', 'DeleteForeground', 'Retain'] as const, {
        default: 'Retain',
        description:
          'What happens to the claim when it expires: Delete or DeleteForeground remove it, Retain keeps it.',
      }),
    ),
    shutdownTime: Type.Optional(
      DateTime({ description: 'The instant the claim expires. Not copied to the Sandbox.' }),
    ),
    ttlSecondsAfterFinished: Type.Optional(
      Int32({
        minimum: 0,
        description: 'Seconds after the sandbox finished before the claim expires.',
      }),
    ),
  },
  { description: 'When and how the claim ends.' },
);

export const ClaimEnvVarSchema = Type.Object(
  {
    containerName: Type.Optional(
      Type.String({ description: 'The container to set it in; the first container when empty.' }),
    ),
    name: Type.String({ description: 'Name of the environment variable.' }),
    value: Type.String({ description: 'Value of the environment variable.' }),
  },
  { description: 'An environment variable to set in the sandbox.' },
);
export type ClaimEnvVar = Static<typeof ClaimEnvVarSchema>;

export const sandboxClaimCommonSpec = {
  additionalPodMetadata: Type.Optional(PodMetadataSchema),
  env: Type.Optional(
    AtomicList(ClaimEnvVarSchema, {
      description: 'Environment variables for the sandbox; any entry forces a cold start.',
    }),
  ),
  lifecycle: Type.Optional(ClaimLifecycleSchema),
};

export const SandboxClaimSpecSchema = Type.Object(
  {
    ...sandboxClaimCommonSpec,
    volumeClaimTemplates: Type.Optional(VolumeClaimTemplatesSchema),
    warmPoolRef: Type.Object(
      { name: Type.String({ description: 'Name of the SandboxWarmPool in this namespace.' }) },
      { description: 'The warm pool to take a sandbox from; it also names the template.' },
    ),
  },
  { description: 'The desired state of a SandboxClaim.' },
);
export type SandboxClaimSpec = Static<typeof SandboxClaimSpecSchema>;

export const SandboxClaimStatusSchema = Type.Object(
  {
    conditions: Type.Optional(ConditionsSchema),
    sandbox: Type.Optional(
      Type.Object(
        {
          name: Type.Optional(Type.String({ description: 'Name of the bound Sandbox.' })),
          podIPs: Type.Optional(
            Type.Array(Type.String(), { description: 'The IP addresses of its Pod.' }),
          ),
        },
        { description: 'The Sandbox bound to this claim.' },
      ),
    ),
  },
  { description: 'The observed state of a SandboxClaim.' },
);
export type SandboxClaimStatus = Static<typeof SandboxClaimStatusSchema>;

export const SandboxClaimSchema = Type.Object(
  {
    ...rootProperties(),
    spec: SandboxClaimSpecSchema,
    status: Type.Optional(SandboxClaimStatusSchema),
  },
  { description: 'A request for a sandbox, served from a warm pool or created cold.' },
);

export interface SandboxClaim extends Static<typeof SandboxClaimSchema> {
  metadata: ObjectMeta;
}
