// Ownership of a Sandbox's children (spec §11.3–11.6, Conventions "controller ref").
// The owner UID is authoritative; the tracking label is only a candidate index (upstream bug #265:
// never touch a Pod the Sandbox does not own).
import { Labels, Annotations, SANDBOX_GROUP, STORAGE_VERSION, Kinds } from '@agent-sandbox/api';
import type { v1beta1 } from '@agent-sandbox/api';
import type { ObjectMeta, OwnerReference } from '@agent-sandbox/kube-types';
import { ControllersError } from '../errors.ts';

type Sandbox = v1beta1.Sandbox;

/** Anything with Kubernetes object metadata (Pod, Service, PersistentVolumeClaim, Sandbox). */
export interface HasMetadata {
  metadata?: ObjectMeta;
}

export type Ownership =
  | { readonly state: 'Owned'; readonly controllerRef: OwnerReference }
  | { readonly state: 'Unowned' }
  | { readonly state: 'OwnedByOther'; readonly controllerRef: OwnerReference };

/** The kinds of child the error messages name, spelled as upstream spells them. */
export type ChildKind = 'pod' | 'service' | 'PVC';

/** The controller reference of an object (metav1.GetControllerOf): the first with controller=true. */
export function controllerOf(obj: HasMetadata): OwnerReference | undefined {
  return obj.metadata?.ownerReferences?.find((ref) => ref.controller === true);
}

/** Owned / Unowned / OwnedByOther relative to the Sandbox, by controller-ref UID (TestCheckOwnership). */
export function checkOwnership(obj: HasMetadata, sandbox: Sandbox): Ownership {
  const controllerRef = controllerOf(obj);
  if (controllerRef === undefined) return { state: 'Unowned' };
  if (controllerRef.uid === sandbox.metadata.uid) return { state: 'Owned', controllerRef };
  return { state: 'OwnedByOther', controllerRef };
}

/** True only for an object present and controlled by this Sandbox. */
export function isOwnedBySandbox(obj: HasMetadata | undefined, sandbox: Sandbox): boolean {
  return obj !== undefined && checkOwnership(obj, sandbox).state === 'Owned';
}

/**
 * An unowned child may be adopted only when it carries `agents.x-k8s.io/adoptable: "true"` or the
 * tracking label equal to hash(sandbox name) (spec §9, §11.4–11.6).
 */
export function isAdoptable(obj: HasMetadata, nameHash: string): boolean {
  const labels = obj.metadata?.labels ?? {};
  return labels[Labels.Adoptable] === 'true' || labels[Labels.SandboxNameHash] === nameHash;
}

/** The controller reference a Sandbox puts on its children (controller-runtime SetControllerReference). */
export function sandboxOwnerReference(sandbox: Sandbox): OwnerReference {
  return {
    apiVersion: `${SANDBOX_GROUP}/${STORAGE_VERSION}`,
    kind: Kinds.Sandbox,
    name: sandbox.metadata.name ?? '',
    uid: sandbox.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

/**
 * The owner references after SetControllerReference: an existing reference to the same owner
 * (same group, kind and name) is replaced in place, otherwise the controller ref is appended.
 */
export function withControllerReference(
  refs: readonly OwnerReference[] | undefined,
  sandbox: Sandbox,
): OwnerReference[] {
  const owner = sandboxOwnerReference(sandbox);
  const out = [...(refs ?? [])];
  const i = out.findIndex(
    (ref) =>
      groupOf(ref.apiVersion) === SANDBOX_GROUP &&
      ref.kind === owner.kind &&
      ref.name === owner.name,
  );
  if (i >= 0) out[i] = owner;
  else out.push(owner);
  return out;
}

/** The group of an apiVersion (`group/version`, or `""` for the core `v1`). */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/** The Pod that backs a Sandbox: annotation `agents.x-k8s.io/pod-name` if non-empty, else its name. */
export function resolvePodName(sandbox: Sandbox): string {
  const annotated = sandbox.metadata.annotations?.[Annotations.PodName];
  return annotated !== undefined && annotated !== '' ? annotated : (sandbox.metadata.name ?? '');
}

/** Tracking-label candidates filtered by controller owner UID (TestSandboxOwnedPodsRequiresOwnerUID). */
export function sandboxOwnedPods<T extends HasMetadata>(pods: readonly T[], sandbox: Sandbox): T[] {
  return pods.filter((pod) => isOwnedBySandbox(pod, sandbox));
}

/** `<kind> "<n>" is owned by <Kind>/<name> (UID: <uid>), not by sandbox "<s>"` (spec §11.4–11.6). */
export function ownedByOtherError(
  kind: ChildKind,
  name: string,
  ref: OwnerReference,
  sandbox: Sandbox,
): ControllersError {
  return new ControllersError(
    'OwnedByOther',
    `${kind} "${name}" is owned by ${ref.kind}/${ref.name} (UID: ${ref.uid}), not by sandbox "${sandbox.metadata.name ?? ''}"`,
  );
}

/** The refusal to adopt an unowned child that carries neither authorisation label. */
export function notAdoptableError(kind: ChildKind, name: string): ControllersError {
  return new ControllersError(
    'NotAdoptable',
    `cannot adopt unowned ${kind} "${name}": missing required pool authorization label ("${Labels.Adoptable}") or sandbox tracking label ("${Labels.SandboxNameHash}")`,
  );
}
