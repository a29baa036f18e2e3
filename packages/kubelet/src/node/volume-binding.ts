// PersistentVolume provisioning and binding for the local node (pure), as kube's PV controller
// does it with a dynamic provisioner: every unbound claim gets a PV `pvc-<claim uid>` backed by
// the directory `<claimsDir>/<claim uid>` (a `local` volume pinned to this node), claim and PV
// are bound both ways, and a PV whose claim is gone is reclaimed (reclaim policy Delete) once no
// Pod that is still running mounts that claim.
import type { KubeObject, Pod } from '@agent-sandbox/kube-types';
import { join } from 'node:path';

export const PROVISIONER = 'agent-sandbox.local/host-directory';

export interface ClaimObject extends KubeObject {
  spec?: {
    accessModes?: string[];
    resources?: { requests?: Record<string, string> };
    storageClassName?: string;
    volumeName?: string;
  };
  status?: { phase?: string; accessModes?: string[]; capacity?: Record<string, string> };
}

export interface VolumeObject extends KubeObject {
  spec?: {
    claimRef?: { namespace?: string; name?: string; uid?: string };
    local?: { path: string };
    capacity?: Record<string, string>;
    accessModes?: string[];
  };
  status?: { phase?: string };
}

export type BindingAction =
  | { kind: 'createVolume'; volume: VolumeObject }
  | { kind: 'bindClaim'; claim: ClaimObject; volumeName: string; capacity: string }
  | { kind: 'markVolumeBound'; name: string }
  | { kind: 'reclaim'; name: string; dir: string }
  | { kind: 'removeDir'; dir: string };

/** Object uids as the API server makes them: never a path separator or `..`. */
const SAFE_UID = /^[a-zA-Z0-9][a-zA-Z0-9-]*$/;

export const pvName = (claimUid: string): string => `pvc-${claimUid}`;

export function desiredVolume(claim: ClaimObject, claimsDir: string, node: string): VolumeObject {
  const m = claim.metadata;
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: {
      name: pvName(m.uid ?? ''),
      annotations: { 'pv.kubernetes.io/provisioned-by': PROVISIONER },
    },
    spec: {
      capacity: { storage: claim.spec?.resources?.requests?.['storage'] ?? '1Gi' },
      accessModes: claim.spec?.accessModes ?? ['ReadWriteOnce'],
      persistentVolumeReclaimPolicy: 'Delete',
      storageClassName: claim.spec?.storageClassName ?? '',
      volumeMode: 'Filesystem',
      claimRef: {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        namespace: m.namespace,
        name: m.name,
        uid: m.uid,
      },
      local: { path: join(claimsDir, m.uid ?? '') },
      nodeAffinity: {
        required: {
          nodeSelectorTerms: [
            {
              matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [node] }],
            },
          ],
        },
      },
    },
  } as VolumeObject;
}

function mountedBy(pods: readonly Pod[], namespace: string, claim: string): boolean {
  return pods.some(
    (p) =>
      p.metadata?.namespace === namespace &&
      p.status?.phase !== 'Succeeded' &&
      p.status?.phase !== 'Failed' &&
      (p.spec?.volumes ?? []).some((v) => v.persistentVolumeClaim?.claimName === claim),
  );
}

/** The steps that bring claims, volumes and claim directories to the bound state. */
export function planBinding(input: {
  claims: readonly ClaimObject[];
  volumes: readonly VolumeObject[];
  pods: readonly Pod[];
  /** Claim uids with a directory under claimsDir. */
  dirs: readonly string[];
  claimsDir: string;
  node: string;
}): BindingAction[] {
  const out: BindingAction[] = [];
  const volumes = new Map(input.volumes.map((v) => [v.metadata.name ?? '', v]));
  const claimUids = new Set(input.claims.map((c) => c.metadata.uid ?? ''));
  for (const claim of input.claims) {
    const uid = claim.metadata.uid ?? '';
    if (
      claim.metadata.deletionTimestamp ||
      (claim.spec?.volumeName && claim.spec.volumeName !== pvName(uid))
    )
      continue; // going away, or bound to a volume a user made
    const volume = volumes.get(pvName(uid));
    if (!volume) {
      out.push({ kind: 'createVolume', volume: desiredVolume(claim, input.claimsDir, input.node) });
      continue;
    }
    if (claim.spec?.volumeName !== pvName(uid) || claim.status?.phase !== 'Bound')
      out.push({
        kind: 'bindClaim',
        claim,
        volumeName: pvName(uid),
        capacity: volume.spec?.capacity?.['storage'] ?? '1Gi',
      });
    if (volume.status?.phase !== 'Bound') out.push({ kind: 'markVolumeBound', name: pvName(uid) });
  }
  for (const v of input.volumes) {
    const ref = v.spec?.claimRef;
    const uid = ref?.uid ?? '';
    // Ours only by name and annotation; the directory is derived, never read from the PV (a
    // user-made PV must not point the reclaimer at another path).
    if (v.metadata.annotations?.['pv.kubernetes.io/provisioned-by'] !== PROVISIONER) continue;
    if (!SAFE_UID.test(uid) || v.metadata.name !== pvName(uid) || claimUids.has(uid)) continue;
    if (mountedBy(input.pods, ref?.namespace ?? '', ref?.name ?? '')) continue;
    out.push({ kind: 'reclaim', name: pvName(uid), dir: join(input.claimsDir, uid) });
  }
  const withVolume = new Set(input.volumes.map((v) => v.spec?.claimRef?.uid ?? ''));
  for (const uid of input.dirs)
    if (SAFE_UID.test(uid) && !claimUids.has(uid) && !withVolume.has(uid))
      out.push({ kind: 'removeDir', dir: join(input.claimsDir, uid) });
  return out;
}
