// What each CustomResourceDefinition declares besides its schemas (spec §1): names, scope,
// versions, subresources, printer columns and conversion. Data, so build-crds stays generic.
import type {
  CustomResourceColumnDefinition,
  CustomResourceSubresources,
} from '@agent-sandbox/kube-types';
import type { TSchema } from '@sinclair/typebox';
import { KIND_GROUPS, type ApiVersionName, type KindName } from '../groups.ts';
import * as a1Claim from '../v1alpha1/sandbox-claim.ts';
import * as a1Sandbox from '../v1alpha1/sandbox.ts';
import * as a1Template from '../v1alpha1/sandbox-template.ts';
import * as a1Pool from '../v1alpha1/sandbox-warm-pool.ts';
import * as b1Claim from '../v1beta1/sandbox-claim.ts';
import * as b1Sandbox from '../v1beta1/sandbox.ts';
import * as b1Template from '../v1beta1/sandbox-template.ts';
import * as b1Pool from '../v1beta1/sandbox-warm-pool.ts';

export interface VersionDefinition {
  name: ApiVersionName;
  schema: TSchema;
  subresources?: CustomResourceSubresources;
  printerColumns?: CustomResourceColumnDefinition[];
}

export interface KindDefinition {
  kind: KindName;
  group: string;
  plural: string;
  singular: string;
  shortNames: string[];
  versions: VersionDefinition[];
}

const READY: CustomResourceColumnDefinition = {
  name: 'Ready',
  type: 'string',
  jsonPath: ".status.conditions[?(@.type=='Ready')].status",
};
const REASON: CustomResourceColumnDefinition = {
  name: 'Reason',
  type: 'string',
  jsonPath: ".status.conditions[?(@.type=='Ready')].reason",
};
const AGE: CustomResourceColumnDefinition = {
  name: 'Age',
  type: 'date',
  jsonPath: '.metadata.creationTimestamp',
};
const POOL_COLUMNS: CustomResourceColumnDefinition[] = [
  { name: 'Ready', type: 'integer', jsonPath: '.status.readyReplicas' },
  { name: 'Desired', type: 'integer', jsonPath: '.spec.replicas' },
  AGE,
];
const REPLICAS_SCALE = {
  specReplicasPath: '.spec.replicas',
  statusReplicasPath: '.status.replicas',
  labelSelectorPath: '.status.selector',
};

export const KIND_DEFINITIONS: readonly KindDefinition[] = [
  {
    kind: 'Sandbox',
    group: KIND_GROUPS.Sandbox,
    plural: 'sandboxes',
    singular: 'sandbox',
    shortNames: ['sandbox'],
    versions: [
      {
        name: 'v1beta1',
        schema: b1Sandbox.SandboxSchema,
        subresources: { status: {} },
        printerColumns: [READY, REASON, AGE],
      },
      {
        name: 'v1alpha1',
        schema: a1Sandbox.SandboxSchema,
        subresources: { status: {}, scale: REPLICAS_SCALE },
      },
    ],
  },
  {
    kind: 'SandboxTemplate',
    group: KIND_GROUPS.SandboxTemplate,
    plural: 'sandboxtemplates',
    singular: 'sandboxtemplate',
    shortNames: ['sandboxtemplate'],
    versions: [
      { name: 'v1beta1', schema: b1Template.SandboxTemplateSchema },
      { name: 'v1alpha1', schema: a1Template.SandboxTemplateSchema },
    ],
  },
  {
    kind: 'SandboxClaim',
    group: KIND_GROUPS.SandboxClaim,
    plural: 'sandboxclaims',
    singular: 'sandboxclaim',
    shortNames: ['sandboxclaim'],
    versions: [
      {
        name: 'v1beta1',
        schema: b1Claim.SandboxClaimSchema,
        subresources: { status: {} },
        printerColumns: [
          READY,
          { name: 'Sandbox', type: 'string', jsonPath: '.status.sandbox.name' },
          REASON,
          AGE,
        ],
      },
      { name: 'v1alpha1', schema: a1Claim.SandboxClaimSchema, subresources: { status: {} } },
    ],
  },
  {
    kind: 'SandboxWarmPool',
    group: KIND_GROUPS.SandboxWarmPool,
    plural: 'sandboxwarmpools',
    singular: 'sandboxwarmpool',
    shortNames: ['swp'],
    versions: [
      {
        name: 'v1beta1',
        schema: b1Pool.SandboxWarmPoolSchema,
        subresources: { status: {}, scale: REPLICAS_SCALE },
        printerColumns: POOL_COLUMNS,
      },
      {
        name: 'v1alpha1',
        schema: a1Pool.SandboxWarmPoolSchema,
        subresources: { status: {}, scale: REPLICAS_SCALE },
        printerColumns: POOL_COLUMNS,
      },
    ],
  },
];
