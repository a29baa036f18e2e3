// Runs the volume binding plan (volume-binding.ts) against the API and the claims directory:
// a pass after any PVC, PV or Pod event and periodically (runLevelSync). Safe under restarts and
// concurrent writers: every step is re-derived from the current state on the next pass.
import type { KubeObject, Pod } from '@agent-sandbox/kube-types';
import {
  PERSISTENT_VOLUME_CLAIMS,
  PODS,
  isAlreadyExists,
  isConflict,
  isNotFound,
  type KubeClient,
  type ResourceRef,
} from '@agent-sandbox/kube';
import { readdir, rm } from 'node:fs/promises';
import { runLevelSync } from '../sync/level-sync.ts';
import {
  planBinding,
  type BindingAction,
  type ClaimObject,
  type VolumeObject,
} from './volume-binding.ts';

export const PERSISTENT_VOLUMES: ResourceRef = {
  group: '',
  version: 'v1',
  plural: 'persistentvolumes',
  kind: 'PersistentVolume',
  namespaced: false,
};

export interface VolumeBinderOptions {
  client: KubeClient;
  /** The node agent's `<dataDir>/claims`. */
  claimsDir: string;
  nodeName: string;
  onError(err: unknown): void;
}

const tolerate =
  (...ok: ((e: unknown) => boolean)[]) =>
  (e: unknown): void => {
    if (!ok.some((f) => f(e))) throw e;
  };

async function apply(c: KubeClient, a: BindingAction): Promise<void> {
  switch (a.kind) {
    case 'createVolume':
      await c.create(PERSISTENT_VOLUMES, a.volume).catch(tolerate(isAlreadyExists));
      return;
    case 'bindClaim': {
      const m = a.claim.metadata;
      const annotations = {
        'pv.kubernetes.io/bind-completed': 'yes',
        'pv.kubernetes.io/bound-by-controller': 'yes',
      };
      // The PV controller's own writes: spec.volumeName is the binding, set once.
      if (a.claim.spec?.volumeName !== a.volumeName)
        await c
          .patch(PERSISTENT_VOLUME_CLAIMS, m.namespace, m.name ?? '', {
            type: 'merge',
            body: { metadata: { annotations }, spec: { volumeName: a.volumeName } },
          })
          .catch(tolerate(isNotFound, isConflict));
      const status = {
        phase: 'Bound',
        accessModes: a.claim.spec?.accessModes ?? ['ReadWriteOnce'],
        capacity: { storage: a.capacity },
      };
      await c
        .patch(
          PERSISTENT_VOLUME_CLAIMS,
          m.namespace,
          m.name ?? '',
          { type: 'merge', body: { status } },
          { subresource: 'status' },
        )
        .catch(tolerate(isNotFound, isConflict));
      return;
    }
    case 'markVolumeBound':
      await c
        .patch(
          PERSISTENT_VOLUMES,
          undefined,
          a.name,
          { type: 'merge', body: { status: { phase: 'Bound' } } },
          { subresource: 'status' },
        )
        .catch(tolerate(isNotFound, isConflict));
      return;
    case 'reclaim':
      await rm(a.dir, { recursive: true, force: true });
      await c.delete(PERSISTENT_VOLUMES, undefined, a.name).catch(tolerate(isNotFound));
      return;
    case 'removeDir':
      await rm(a.dir, { recursive: true, force: true });
      return;
  }
}

/** One pass: lists everything, plans, applies each step (the first failure ends the pass). */
export async function syncVolumes(o: Omit<VolumeBinderOptions, 'onError'>): Promise<void> {
  const c = o.client;
  const [claims, volumes, pods, dirs] = await Promise.all([
    c.list<ClaimObject>(PERSISTENT_VOLUME_CLAIMS),
    c.list<VolumeObject>(PERSISTENT_VOLUMES),
    c.list<Pod & KubeObject>(PODS),
    readdir(o.claimsDir).catch(() => [] as string[]),
  ]);
  const plan = planBinding({
    claims: claims.items,
    volumes: volumes.items,
    pods: pods.items,
    dirs,
    claimsDir: o.claimsDir,
    node: o.nodeName,
  });
  for (const action of plan) await apply(c, action);
}

/** Runs until `signal` aborts; never rejects (failed passes go to onError and are retried). */
export function runVolumeBinder(o: VolumeBinderOptions, signal: AbortSignal): Promise<void> {
  return runLevelSync(
    {
      client: o.client,
      watch: [PERSISTENT_VOLUME_CLAIMS, PERSISTENT_VOLUMES, PODS],
      sync: () => syncVolumes(o),
      onError: o.onError,
    },
    signal,
  );
}
