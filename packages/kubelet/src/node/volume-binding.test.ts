import { describe, expect, it } from 'vitest';
import {
  PROVISIONER,
  planBinding,
  pvName,
  type ClaimObject,
  type VolumeObject,
} from './volume-binding.ts';

const DIR = '/data/node/claims';
const claim = (name: string, uid: string, extra: Partial<ClaimObject> = {}): ClaimObject => ({
  metadata: { name, namespace: 'ns', uid },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '2Gi' } } },
  ...extra,
});
const volume = (uid: string, claimName: string, phase?: string): VolumeObject => ({
  metadata: { name: pvName(uid), annotations: { 'pv.kubernetes.io/provisioned-by': PROVISIONER } },
  spec: { claimRef: { namespace: 'ns', name: claimName, uid }, capacity: { storage: '2Gi' } },
  ...(phase ? { status: { phase } } : {}),
});
const plan = (i: Partial<Parameters<typeof planBinding>[0]>) =>
  planBinding({ claims: [], volumes: [], pods: [], dirs: [], claimsDir: DIR, node: 'n1', ...i });

describe('planBinding', () => {
  it('provisions a local PV pinned to the node for an unbound claim', () => {
    const [a, ...rest] = plan({ claims: [claim('data', 'u1')] });
    expect(rest).toEqual([]);
    expect(a).toMatchObject({
      kind: 'createVolume',
      volume: {
        metadata: { name: 'pvc-u1' },
        spec: {
          capacity: { storage: '2Gi' },
          accessModes: ['ReadWriteOnce'],
          persistentVolumeReclaimPolicy: 'Delete',
          claimRef: { namespace: 'ns', name: 'data', uid: 'u1', kind: 'PersistentVolumeClaim' },
          local: { path: `${DIR}/u1` },
          nodeAffinity: {
            required: { nodeSelectorTerms: [{ matchExpressions: [{ values: ['n1'] }] }] },
          },
        },
      },
    });
  });

  it('binds both ways, then has nothing to do', () => {
    const c = claim('data', 'u1');
    expect(plan({ claims: [c], volumes: [volume('u1', 'data')] })).toEqual([
      { kind: 'bindClaim', claim: c, volumeName: 'pvc-u1', capacity: '2Gi' },
      { kind: 'markVolumeBound', name: 'pvc-u1' },
    ]);
    const bound = claim('data', 'u1', {
      spec: { volumeName: 'pvc-u1' },
      status: { phase: 'Bound' },
    });
    expect(plan({ claims: [bound], volumes: [volume('u1', 'data', 'Bound')] })).toEqual([]);
  });

  it('leaves claims bound to a user volume and claims being deleted alone', () => {
    const user = claim('mine', 'u2', { spec: { volumeName: 'my-pv' } });
    const going = claim('bye', 'u3');
    going.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
    expect(plan({ claims: [user, going] })).toEqual([]);
  });

  it('reclaims a PV whose claim is gone once no running Pod mounts it; removes stray dirs', () => {
    const pod = {
      metadata: { namespace: 'ns', name: 'p' },
      spec: {
        containers: [],
        volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'data' } }],
      },
      status: { phase: 'Running' },
    };
    expect(plan({ volumes: [volume('u1', 'data')], pods: [pod] })).toEqual([]);
    expect(plan({ volumes: [volume('u1', 'data')], dirs: ['u1', 'u9', '..'] })).toEqual([
      { kind: 'reclaim', name: 'pvc-u1', dir: `${DIR}/u1` },
      { kind: 'removeDir', dir: `${DIR}/u9` },
    ]);
  });

  it('never reclaims PVs it did not make, nor paths a PV names', () => {
    const foreign = volume('u1', 'data');
    delete foreign.metadata.annotations;
    const renamed = {
      ...volume('u5', 'x'),
      metadata: { ...volume('u5', 'x').metadata, name: 'other' },
    };
    const sneaky = volume('../../etc', 'x');
    expect(plan({ volumes: [foreign, renamed, sneaky] })).toEqual([]);
  });
});
