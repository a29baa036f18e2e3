// Pure builders of the objects the SDK writes (claims, Sandboxes, shadow pools) and the patches
// of its lifecycle calls. No I/O: sandbox.ts sends them.
import {
  Annotations,
  EXTENSIONS_GROUP,
  Labels,
  SANDBOX_GROUP,
  STORAGE_VERSION,
} from '@agent-sandbox/api';
// shutdownTime is written as upstream's SDKs write it: metav1.Time, whole seconds.
import { formatTime } from '@agent-sandbox/kube-types';
import type { ClaimObject, SandboxObject, WarmPoolObject } from './resources.ts';

/** The value of Labels.CreatedBy on what this SDK creates. */
export const CREATED_BY = 'typescript-client';
/** Upstream's name for the replicas-0 pool that stands for "this template, no warm pool". */
export const SHADOW_POOL_PREFIX = 'shadow-pool-';
/** The container an `image` sandbox runs. */
export const IMAGE_CONTAINER = 'sandbox';

export interface ObjectInput {
  name: string;
  namespace: string;
  labels: Record<string, string>;
  /** Annotations (the SDK's `metadata`). */
  metadata: Record<string, string>;
  env: Record<string, string>;
  /** Absolute expiry, or undefined for none. */
  shutdownAt: Date | undefined;
  now: Date;
  traceContext: string | undefined;
}

function commonMetadata(input: ObjectInput): ClaimObject['metadata'] {
  const annotations: Record<string, string> = {
    ...input.metadata,
    [Annotations.ClientFirstRequestedAt]: input.now.toISOString(),
  };
  if (input.traceContext) annotations[Annotations.TraceContext] = input.traceContext;
  return {
    name: input.name,
    namespace: input.namespace,
    labels: { ...input.labels, [Labels.CreatedBy]: CREATED_BY },
    annotations,
  };
}

const envList = (env: Record<string, string>): { name: string; value: string }[] =>
  Object.entries(env).map(([name, value]) => ({ name, value }));

export function desiredClaim(input: ObjectInput, warmPool: string): ClaimObject {
  const spec: ClaimObject['spec'] = { warmPoolRef: { name: warmPool } };
  if (Object.keys(input.env).length > 0) spec.env = envList(input.env);
  if (input.shutdownAt)
    spec.lifecycle = { shutdownTime: formatTime(input.shutdownAt), shutdownPolicy: 'Delete' };
  return {
    apiVersion: `${EXTENSIONS_GROUP}/${STORAGE_VERSION}`,
    kind: 'SandboxClaim',
    metadata: commonMetadata(input),
    spec,
  };
}

export function desiredImageSandbox(input: ObjectInput, image: string): SandboxObject {
  const container: SandboxObject['spec']['podTemplate']['spec']['containers'][number] = {
    name: IMAGE_CONTAINER,
    image,
  };
  if (Object.keys(input.env).length > 0) container.env = envList(input.env);
  const spec: SandboxObject['spec'] = {
    podTemplate: {
      metadata: { labels: { ...input.labels } },
      spec: { containers: [container] },
    },
  };
  if (input.shutdownAt) {
    spec.shutdownTime = formatTime(input.shutdownAt);
    spec.shutdownPolicy = 'Delete';
  }
  return {
    apiVersion: `${SANDBOX_GROUP}/${STORAGE_VERSION}`,
    kind: 'Sandbox',
    metadata: commonMetadata(input),
    spec,
  };
}

/** A pool of no replicas: claims through it are cold creations from `template`. */
export function shadowPool(namespace: string, template: string): WarmPoolObject {
  return {
    apiVersion: `${EXTENSIONS_GROUP}/${STORAGE_VERSION}`,
    kind: 'SandboxWarmPool',
    metadata: {
      name: shadowPoolName(template),
      namespace,
      labels: { [Labels.CreatedBy]: CREATED_BY },
    },
    spec: { replicas: 0, sandboxTemplateRef: { name: template } },
  };
}

export function shadowPoolName(template: string): string {
  return `${SHADOW_POOL_PREFIX}${template}`;
}

/** The merge patch of setTimeout() on a claim; keeps a shutdownPolicy the claim already has. */
export function claimTimeoutPatch(claim: ClaimObject, shutdownAt: Date): Record<string, unknown> {
  const policy = claim.spec.lifecycle?.shutdownPolicy ?? 'Delete';
  return {
    spec: { lifecycle: { shutdownTime: formatTime(shutdownAt), shutdownPolicy: policy } },
  };
}

/**
 * The merge patch of setTimeout() on a Sandbox created from an image: deleted at expiry, as
 * create's timeoutMs does (the API's default, Retain, would keep an empty Sandbox around).
 */
export function sandboxTimeoutPatch(shutdownAt: Date): Record<string, unknown> {
  return { spec: { shutdownTime: formatTime(shutdownAt), shutdownPolicy: 'Delete' } };
}

export function operatingModePatch(mode: 'Running' | 'Suspended'): Record<string, unknown> {
  return { spec: { operatingMode: mode } };
}
