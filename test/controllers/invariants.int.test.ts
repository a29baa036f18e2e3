// checkInvariants on hand-built objects: a converged Sandbox passes, and each kind of damage a
// crashed manager could leave behind is named. (test/** runs in the integration project only.)
import { Annotations, Labels, nameHash } from '@agent-sandbox/api';
import { SANDBOX_FIELD_OWNER } from '@agent-sandbox/controllers';
import type { KubeObject, Pod, Service } from '@agent-sandbox/kube-types';
import { describe, expect, it } from 'vitest';
import type { PlannedSandbox } from './chaos-plan.ts';
import {
  checkInvariants,
  type DriverRecord,
  type ObservedState,
  type SandboxObject,
} from './invariants.ts';

const ns = 'chaos';
const now = new Date('2026-11-30T12:00:00Z');
const spec = {
  podTemplate: { spec: { containers: [{ name: 'main', image: 'busybox' }] } },
  service: true,
};
const planned: PlannedSandbox = {
  name: 'sb',
  service: true,
  volumeClaimTemplates: ['data'],
  initialMode: 'Running',
  createAtMs: 0,
  ops: [],
  serviceOps: [],
};
const record: DriverRecord = { planned, uid: 'uid-sb', mode: 'Running', generation: 1, spec };
const owner = {
  apiVersion: 'agents.x-k8s.io/v1beta1',
  kind: 'Sandbox',
  name: 'sb',
  uid: 'uid-sb',
  controller: true,
};
const meta = (name: string) => ({
  name,
  namespace: ns,
  labels: { [Labels.SandboxNameHash]: nameHash('sb') },
  ownerReferences: [owner],
});
const cond = (type: string, status: 'True' | 'False', reason: string) => ({
  type,
  status,
  reason,
  message: '',
  lastTransitionTime: '2026-11-30T11:00:00Z',
  observedGeneration: 1,
});

function converged(): ObservedState {
  const sandbox: SandboxObject = {
    apiVersion: 'agents.x-k8s.io/v1beta1',
    kind: 'Sandbox',
    metadata: {
      name: 'sb',
      namespace: ns,
      uid: 'uid-sb',
      generation: 1,
      annotations: { [Annotations.PodName]: 'sb' },
    },
    spec,
    status: {
      conditions: [
        cond('Suspended', 'False', 'NotSuspended'),
        cond('Ready', 'True', 'DependenciesReady'),
      ],
      podIPs: ['10.0.0.1'],
      service: 'sb',
      serviceFQDN: `sb.${ns}.svc.cluster.local`,
      selector: `${Labels.SandboxNameHash}=${nameHash('sb')}`,
    },
  };
  const pod: Pod & KubeObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: meta('sb'),
    spec: { containers: [] },
    status: {
      phase: 'Running',
      podIPs: [{ ip: '10.0.0.1' }],
      conditions: [{ type: 'Ready', status: 'True' }],
    },
  };
  const service: Service & KubeObject = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: meta('sb'),
    spec: { clusterIP: 'None' },
  };
  return {
    sandboxes: [sandbox],
    pods: [pod],
    services: [service],
    pvcs: [{ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: meta('data-sb') }],
  };
}

const check = (state: ObservedState, records = [record]) =>
  checkInvariants(records, state, { namespace: ns, now });

describe('checkInvariants', () => {
  it('passes a converged running Sandbox', () => {
    expect(check(converged())).toEqual([]);
  });

  it('names a second Pod, an orphan, a missing PVC and a terminating child', () => {
    const state = converged();
    const twin = structuredClone(state.pods[0]!);
    twin.metadata.name = 'sb-2';
    const orphan = structuredClone(state.services[0]!);
    orphan.metadata = {
      name: 'gone',
      namespace: ns,
      labels: { [Labels.SandboxNameHash]: 'x' },
      ownerReferences: [{ ...owner, uid: 'uid-gone' }],
    };
    state.pods.push(twin);
    state.services.push(orphan);
    state.pvcs = [];
    state.services[0]!.metadata.deletionTimestamp = '2026-11-30T11:59:00Z';
    const out = check(state);
    expect(out).toContainEqual(expect.stringMatching(/^Pod \S+: 2 objects share one name hash/));
    expect(out).toContainEqual(
      expect.stringMatching(
        /^Service gone: orphan, controller owner Sandbox\/sb \(uid-gone\) is gone/,
      ),
    );
    expect(out).toContainEqual(
      expect.stringMatching(/PVC data-sb: want exactly one owned by the Sandbox, found 0/),
    );
    expect(out).toContainEqual('Service sb: still terminating');
  });

  it('names a spec or field ownership the controller took, and Ready that does not match the Pod', () => {
    const state = converged();
    const sandbox = state.sandboxes[0]!;
    sandbox.metadata.generation = 2;
    sandbox.metadata.managedFields = [
      { manager: SANDBOX_FIELD_OWNER, operation: 'Update', fieldsV1: { 'f:spec': {} } },
    ];
    state.pods[0]!.status = { phase: 'Pending' };
    const out = check(state);
    expect(out).toContainEqual(expect.stringMatching(/generation 2, driver last wrote 1/));
    expect(out).toContainEqual(
      expect.stringMatching(/managedFields: sandbox-controller owns spec fields/),
    );
    expect(out).toContainEqual(
      expect.stringMatching(/Pod not ready, Sandbox Ready True\/DependenciesReady/),
    );
  });

  it('wants a suspended Sandbox without Pod and an expired Delete one gone with its children', () => {
    const suspended = check(converged(), [{ ...record, mode: 'Suspended' }]);
    expect(suspended).toContainEqual(expect.stringMatching(/suspended but has 1 Pods/));
    const expired = {
      ...record,
      shutdownTime: '2026-11-30T11:00:00Z',
      planned: { ...planned, expiry: { atMs: 0, policy: 'Delete' as const } },
    };
    const out = check(converged(), [expired]);
    expect(out).toContainEqual(
      expect.stringMatching(/expired with policy Delete but still exists/),
    );
    expect(out).toContainEqual(
      expect.stringMatching(/deleted, yet 1 Pods, 1 Services, 1 PVCs remain/),
    );
  });

  it('counts a deleted child held only by an unserved finalizer as gone', () => {
    const state = converged();
    state.sandboxes = [];
    const pvc = state.pvcs[0]!;
    pvc.metadata.deletionTimestamp = '2026-11-30T11:59:00Z';
    pvc.metadata.finalizers = ['kubernetes.io/pvc-protection'];
    state.pods = [];
    state.services = [];
    const expired = {
      ...record,
      shutdownTime: '2026-11-30T11:00:00Z',
      planned: { ...planned, expiry: { atMs: 0, policy: 'Delete' as const } },
    };
    expect(checkInvariants([expired], state, { namespace: ns, now })).not.toEqual([]);
    expect(
      checkInvariants([expired], state, {
        namespace: ns,
        now,
        unservedFinalizers: ['kubernetes.io/pvc-protection'],
      }),
    ).toEqual([]);
  });
});
