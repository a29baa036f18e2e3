// The extension kinds (extensions.agents.x-k8s.io/v1beta1) and the NetworkPolicy kind the template
// controller owns, as ResourceRefs, and the controller-reference helpers the three extension
// reconcilers share (upstream's "controlled by kind K in group G, any version" checks).
import { EXTENSIONS_GROUP, type v1beta1 } from '@agent-sandbox/api';
import type { ResourceRef } from '@agent-sandbox/kube';
import type { KubeObject, OwnerReference } from '@agent-sandbox/kube-types';

function extensionsKind(plural: string, kind: string): ResourceRef {
  return { group: EXTENSIONS_GROUP, version: 'v1beta1', plural, kind, namespaced: true };
}

export const SANDBOX_CLAIMS = extensionsKind('sandboxclaims', 'SandboxClaim');
export const SANDBOX_TEMPLATES = extensionsKind('sandboxtemplates', 'SandboxTemplate');
export const SANDBOX_WARM_POOLS = extensionsKind('sandboxwarmpools', 'SandboxWarmPool');
export const NETWORK_POLICIES: ResourceRef = {
  group: 'networking.k8s.io',
  version: 'v1',
  plural: 'networkpolicies',
  kind: 'NetworkPolicy',
  namespaced: true,
};

export type ClaimObject = v1beta1.SandboxClaim & KubeObject;
export type TemplateObject = v1beta1.SandboxTemplate & KubeObject;
export type PoolObject = v1beta1.SandboxWarmPool & KubeObject;
export type SandboxObj = v1beta1.Sandbox & KubeObject;

function groupOfApiVersion(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/** The controller reference of `obj`, if any. */
export function controllerRef(obj: KubeObject): OwnerReference | undefined {
  return obj.metadata.ownerReferences?.find((r) => r.controller === true);
}

/** Whether `obj`'s controller is of `kind` in the extensions group (any version). */
export function controlledByKind(obj: KubeObject, kind: string): OwnerReference | undefined {
  const ref = controllerRef(obj);
  if (ref === undefined || ref.kind !== kind) return undefined;
  return groupOfApiVersion(ref.apiVersion) === EXTENSIONS_GROUP ? ref : undefined;
}

/** Whether `obj` is controlled by exactly `owner` (by UID). */
export function isControlledBy(obj: KubeObject, owner: KubeObject): boolean {
  const ref = controllerRef(obj);
  return ref !== undefined && ref.uid !== '' && ref.uid === owner.metadata.uid;
}

/** A controller reference (controller and blockOwnerDeletion true) to an extensions object. */
export function extensionsOwnerRef(owner: KubeObject, kind: string): OwnerReference {
  return {
    apiVersion: `${EXTENSIONS_GROUP}/v1beta1`,
    kind,
    name: owner.metadata.name ?? '',
    uid: owner.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

export function nsName(obj: KubeObject): string {
  return `${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;
}
