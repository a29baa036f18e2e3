// Binding through a real client (@kubernetes/client-node's generated pods/binding and bindings
// calls, as a custom scheduler would make them) and under contention: of concurrent Bindings for
// one Pod exactly one wins, and the Pod names the winner's node.
import {
  ApiException,
  CoreV1Api,
  KubeConfig,
  type V1Binding,
  type V1Pod,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApiServer, type TestApiServer } from '../testing/test-server.ts';

const NS = 'default';

function pod(name: string): V1Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { containers: [{ name: 'c', image: 'busybox' }] },
  };
}

describe('pods/binding through client-node', () => {
  let s: TestApiServer;
  let core: CoreV1Api;
  beforeAll(async () => {
    s = await startTestApiServer();
    const kc = new KubeConfig();
    kc.loadFromFile(s.kubeconfigPath);
    core = kc.makeApiClient(CoreV1Api);
  });
  afterAll(async () => s.close());

  it('binds with createNamespacedPodBinding and createNamespacedBinding', async () => {
    await core.createNamespacedPod({ namespace: NS, body: pod('sub') });
    await core.createNamespacedPod({ namespace: NS, body: pod('legacy') });
    for (const [name, call] of [
      [
        'sub',
        (body: V1Binding) => core.createNamespacedPodBinding({ name: 'sub', namespace: NS, body }),
      ],
      ['legacy', (body: V1Binding) => core.createNamespacedBinding({ namespace: NS, body })],
    ] as const) {
      await call({ metadata: { name }, target: { kind: 'Node', name: `node-${name}` } });
      const read = await core.readNamespacedPod({ name, namespace: NS });
      expect(read.spec?.nodeName).toBe(`node-${name}`);
      expect(read.status?.conditions?.map((c) => [c.type, c.status])).toEqual([
        ['PodScheduled', 'True'],
      ]);
      expect(read.metadata?.generation).toBe(1);
    }
  });

  it('lets exactly one of concurrent Bindings win', async () => {
    await core.createNamespacedPod({ namespace: NS, body: pod('contended') });
    const nodes = Array.from({ length: 8 }, (_, i) => `node-${i}`);
    const results = await Promise.allSettled(
      nodes.map((node) =>
        core.createNamespacedPodBinding({
          name: 'contended',
          namespace: NS,
          body: { metadata: { name: 'contended' }, target: { name: node } },
        }),
      ),
    );
    const won = results.flatMap((r, i) => (r.status === 'fulfilled' ? [nodes[i]] : []));
    expect(won).toHaveLength(1);
    for (const r of results) {
      if (r.status === 'rejected') {
        expect(r.reason).toBeInstanceOf(ApiException);
        expect((r.reason as ApiException<unknown>).code).toBe(409);
      }
    }
    const read = await core.readNamespacedPod({ name: 'contended', namespace: NS });
    expect(read.spec?.nodeName).toBe(won[0]);
  });
});
