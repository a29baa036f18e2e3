// extensions.agents.x-k8s.io/v1beta1 SandboxTemplate (spec §4.1): a reusable blueprint, no status.
import type {
  NetworkPolicyEgressRule,
  NetworkPolicyIngressRule,
  ObjectMeta,
} from '@agent-sandbox/kube-types';
import { Type, type Static } from '@sinclair/typebox';
import { blueprintProperties } from '../blueprint.ts';
import { CoreRef, rootProperties, StringEnum } from '../schema.ts';

export const EnvVarsInjectionPolicy = {
  Allowed: 'Allowed',
  Overrides: 'Overrides',
  Disallowed: 'Disallowed',
} as const;
export type EnvVarsInjectionPolicy =
  (typeof EnvVarsInjectionPolicy)[keyof typeof EnvVarsInjectionPolicy];

export const VolumeClaimTemplatesPolicy = {
  Disallowed: 'Disallowed',
  Allowed: 'Allowed',
  Overrides: 'Overrides',
} as const;
export type VolumeClaimTemplatesPolicy =
  (typeof VolumeClaimTemplatesPolicy)[keyof typeof VolumeClaimTemplatesPolicy];

export const NetworkPolicyManagement = { Managed: 'Managed', Unmanaged: 'Unmanaged' } as const;
export type NetworkPolicyManagement =
  (typeof NetworkPolicyManagement)[keyof typeof NetworkPolicyManagement];

export const templateNetworkProperties = {
  envVarsInjectionPolicy: Type.Optional(
    StringEnum(['Allowed', 'Overrides', 'Disallowed'] as const, {
      default: 'Disallowed',
      description:
        'Whether claims may set environment variables: Allowed adds new ones, Overrides may also replace the template’s, Disallowed refuses any.',
    }),
  ),
  networkPolicy: Type.Optional(
    Type.Object(
      {
        egress: Type.Optional(
          Type.Array(
            CoreRef<NetworkPolicyEgressRule>('io.k8s.api.networking.v1.NetworkPolicyEgressRule'),
            { description: 'Traffic the sandboxes may send.' },
          ),
        ),
        ingress: Type.Optional(
          Type.Array(
            CoreRef<NetworkPolicyIngressRule>('io.k8s.api.networking.v1.NetworkPolicyIngressRule'),
            { description: 'Traffic the sandboxes may receive.' },
          ),
        ),
      },
      { description: 'The NetworkPolicy rules applied to every sandbox made from this template.' },
    ),
  ),
  networkPolicyManagement: Type.Optional(
    StringEnum(['Managed', 'Unmanaged'] as const, {
      default: 'Managed',
      description:
        'Managed: the controller keeps a NetworkPolicy for the template. Unmanaged: it creates none and removes its own.',
    }),
  ),
};

export const SandboxTemplateSpecSchema = Type.Object(
  {
    ...blueprintProperties,
    ...templateNetworkProperties,
    volumeClaimTemplatesPolicy: Type.Optional(
      StringEnum(['Disallowed', 'Allowed', 'Overrides'] as const, {
        default: 'Disallowed',
        description:
          'Whether claims may bring volumeClaimTemplates: Allowed adds new ones, Overrides may also replace the template’s, Disallowed refuses any.',
      }),
    ),
  },
  { description: 'The desired state of a SandboxTemplate.' },
);
export type SandboxTemplateSpec = Static<typeof SandboxTemplateSpecSchema>;

export const SandboxTemplateSchema = Type.Object(
  { ...rootProperties(), spec: SandboxTemplateSpecSchema },
  { description: 'A reusable blueprint for sandboxes, referenced by warm pools.' },
);

export interface SandboxTemplate extends Static<typeof SandboxTemplateSchema> {
  metadata: ObjectMeta;
}
