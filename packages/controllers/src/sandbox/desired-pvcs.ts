// PersistentVolumeClaims from spec.volumeClaimTemplates (spec §11.4). PVCs are never deleted by the
// controller (not on suspend, not on expiry): they go with the Sandbox through garbage collection.
import { Labels, nameHash } from '@agent-sandbox/api';
import type { PersistentVolumeClaimTemplate, v1beta1 } from '@agent-sandbox/api';
import type { OwnerReference, PersistentVolumeClaim } from '@agent-sandbox/kube-types';
import type { ControllersError } from '../errors.ts';
import {
  checkOwnership,
  isAdoptable,
  notAdoptableError,
  ownedByOtherError,
  sandboxOwnerReference,
  withControllerReference,
} from './ownership.ts';

type Sandbox = v1beta1.Sandbox;

/** `<template.metadata.name>-<sandbox.name>` (TestReconcile "PVC name `<vct>-<sandbox>`"). */
export function pvcName(template: PersistentVolumeClaimTemplate, sandbox: Sandbox): string {
  return `${template.metadata?.name ?? ''}-${sandbox.metadata.name ?? ''}`;
}

/**
 * The PVC to create for one template: template labels plus the tracking label, template
 * annotations, template spec and a controller ref to the Sandbox.
 */
export function desiredPvc(
  template: PersistentVolumeClaimTemplate,
  sandbox: Sandbox,
): PersistentVolumeClaim {
  const metadata: PersistentVolumeClaim['metadata'] = {
    name: pvcName(template, sandbox),
    labels: {
      ...(template.metadata?.labels ?? {}),
      [Labels.SandboxNameHash]: nameHash(sandbox.metadata.name ?? ''),
    },
    ownerReferences: [sandboxOwnerReference(sandbox)],
  };
  if (sandbox.metadata.namespace !== undefined) metadata.namespace = sandbox.metadata.namespace;
  if (template.metadata?.annotations !== undefined) {
    metadata.annotations = { ...template.metadata.annotations };
  }
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata,
    spec: structuredClone(template.spec),
  };
}

/** The PVCs a Sandbox wants, in template order. */
export function desiredPvcs(sandbox: Sandbox): PersistentVolumeClaim[] {
  return (sandbox.spec.volumeClaimTemplates ?? []).map((t) => desiredPvc(t, sandbox));
}

/** What to do about one volumeClaimTemplate given the PVC found under its name, if any. */
export type PvcAction =
  | { readonly action: 'Create'; readonly pvc: PersistentVolumeClaim }
  | { readonly action: 'None'; readonly name: string }
  | {
      readonly action: 'Adopt';
      readonly name: string;
      /** Merge patch setting the controller ref. */
      readonly patch: { metadata: { ownerReferences: OwnerReference[] } };
    }
  | { readonly action: 'Error'; readonly name: string; readonly error: ControllersError };

/** The decision for one template (TestReconcilePVCs): create, reuse, adopt or refuse. */
export function pvcAction(
  template: PersistentVolumeClaimTemplate,
  sandbox: Sandbox,
  existing: PersistentVolumeClaim | undefined,
): PvcAction {
  const name = pvcName(template, sandbox);
  if (existing === undefined) return { action: 'Create', pvc: desiredPvc(template, sandbox) };
  const ownership = checkOwnership(existing, sandbox);
  switch (ownership.state) {
    case 'Owned':
      return { action: 'None', name };
    case 'OwnedByOther':
      return {
        action: 'Error',
        name,
        error: ownedByOtherError('PVC', name, ownership.controllerRef, sandbox),
      };
    case 'Unowned':
      if (!isAdoptable(existing, nameHash(sandbox.metadata.name ?? ''))) {
        return { action: 'Error', name, error: notAdoptableError('PVC', name) };
      }
      return {
        action: 'Adopt',
        name,
        patch: {
          metadata: {
            ownerReferences: withControllerReference(existing.metadata?.ownerReferences, sandbox),
          },
        },
      };
  }
}

/**
 * The decisions for every template, in order, stopping after the first error as upstream does
 * (the reconciler also stops when one of its writes fails).
 */
export function pvcActions(
  sandbox: Sandbox,
  existingByName: ReadonlyMap<string, PersistentVolumeClaim>,
): PvcAction[] {
  const out: PvcAction[] = [];
  for (const template of sandbox.spec.volumeClaimTemplates ?? []) {
    const action = pvcAction(template, sandbox, existingByName.get(pvcName(template, sandbox)));
    out.push(action);
    if (action.action === 'Error') break;
  }
  return out;
}
