// Must-show (issue 3): a Pod created through client-node is bound by kube-scheduler to a kwok
// node and reported Running with an IP; deleting its owner garbage-collects it.
import { CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTarget } from '../support/target.ts';
import { createTestNamespace, eventually, isNotFound } from './testing.ts';

let core: CoreV1Api;
let namespace: string;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  const { kubeConfig } = await connectTarget();
  core = kubeConfig.makeApiClient(CoreV1Api);
  ({ namespace, cleanup } = await createTestNamespace(core, 'pods'));
});

afterAll(async () => cleanup?.());

function pod(name: string, extra: Partial<V1Pod['metadata']> = {}): V1Pod {
  return {
    metadata: { name, ...extra },
    // A short grace period: kwok's general pod-delete stage waits up to the deletionTimestamp.
    spec: { terminationGracePeriodSeconds: 1, containers: [{ name: 'main', image: 'busybox' }] },
  };
}

async function runningPod(name: string): Promise<V1Pod> {
  return eventually(async () => {
    const p = await core.readNamespacedPod({ name, namespace });
    expect(p.status?.phase).toBe('Running');
    expect(p.status?.podIP).toMatch(/^10\.244\.\d+\.\d+$/);
    return p;
  });
}

describe('pods on kwok nodes', () => {
  it('is bound by kube-scheduler to a kwok node and becomes Running with a pod IP', async () => {
    await core.createNamespacedPod({ namespace, body: pod('scheduled') });
    const p = await runningPod('scheduled');
    expect(p.spec?.nodeName).toMatch(/^kwok-node-\d{4}$/);
    const scheduled = p.status?.conditions?.find((c) => c.type === 'PodScheduled');
    expect(scheduled?.status).toBe('True');
    const ready = p.status?.conditions?.find((c) => c.type === 'Ready');
    expect(ready?.status).toBe('True');
    const events = await core.listNamespacedEvent({
      namespace,
      fieldSelector: 'involvedObject.name=scheduled,reason=Scheduled',
    });
    expect(events.items[0]?.source?.component ?? events.items[0]?.reportingComponent).toBe(
      'default-scheduler',
    );
  });

  it('is garbage-collected when its owner ConfigMap is deleted', async () => {
    const owner = await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: 'owner' }, data: { k: 'v' } },
    });
    const ownerReferences = [
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata?.uid ?? '' },
    ];
    await core.createNamespacedPod({ namespace, body: pod('owned', { ownerReferences }) });
    await runningPod('owned');

    await core.deleteNamespacedConfigMap({ name: 'owner', namespace });

    await eventually(async () => {
      const gone = await core.readNamespacedPod({ name: 'owned', namespace }).then(
        () => false,
        (err: unknown) => (isNotFound(err) ? true : Promise.reject(err)),
      );
      expect(gone).toBe(true);
    });
  });

  it('keeps a deleted pod while it has a finalizer (kwok deletes gracefully, not fast)', async () => {
    const body = pod('held', { finalizers: ['agent-sandbox.test/hold'] });
    await core.createNamespacedPod({ namespace, body });
    await runningPod('held');
    await core.deleteNamespacedPod({ name: 'held', namespace });
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const held = await core.readNamespacedPod({ name: 'held', namespace });
    expect(held.metadata?.deletionTimestamp).toBeDefined();
    expect(held.metadata?.finalizers).toEqual(['agent-sandbox.test/hold']);

    await core.replaceNamespacedPod({
      name: 'held',
      namespace,
      body: { ...held, metadata: { ...held.metadata, finalizers: [] } },
    });
    await eventually(async () => {
      const err = await core.readNamespacedPod({ name: 'held', namespace }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isNotFound(err)).toBe(true);
    });
  });
});
