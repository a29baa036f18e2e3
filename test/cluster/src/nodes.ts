import { CoreV1Api, KubeConfig, type V1Node } from '@kubernetes/client-node';
import { setTimeout as sleep } from 'node:timers/promises';
import { KWOK_NODE_ANNOTATION } from './components.ts';
import { ClusterError } from './errors.ts';

const NODE_LABEL = 'type';
const NODE_LABEL_VALUE = 'kwok';

export function nodeName(index: number): string {
  return `kwok-node-${String(index).padStart(4, '0')}`;
}

/**
 * A fake Node in the shape kwokctl's `scale node` template produces (recipe §5.3): created with
 * its status, no taints, room for 110 pods. kwok's node-initialize stage then marks it Ready.
 */
export function desiredNode(index: number): V1Node {
  const name = nodeName(index);
  const resources = { cpu: '32', memory: '256Gi', pods: '110' };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      annotations: { [KWOK_NODE_ANNOTATION]: 'fake', 'node.alpha.kubernetes.io/ttl': '0' },
      labels: {
        [NODE_LABEL]: NODE_LABEL_VALUE,
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'kubernetes.io/role': 'agent',
        'node-role.kubernetes.io/agent': '',
      },
    },
    spec: {},
    status: {
      allocatable: resources,
      capacity: resources,
      // Loopback, so nothing the apiserver sends to "the kubelet" leaves this machine.
      addresses: [
        { type: 'InternalIP', address: '127.0.0.1' },
        { type: 'Hostname', address: name },
      ],
    },
  };
}

function isReady(node: V1Node): boolean {
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
  const tainted = (node.spec?.taints ?? []).some((t) => t.key === 'node.kubernetes.io/not-ready');
  return ready && !tainted;
}

/** Level-triggered: creates missing nodes and deletes surplus ones until exactly `count` exist. */
export async function scaleNodes(kubeconfig: string, count: number): Promise<void> {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  const core = kc.makeApiClient(CoreV1Api);
  const selector = `${NODE_LABEL}=${NODE_LABEL_VALUE}`;
  const existing = new Set(
    (await core.listNode({ labelSelector: selector })).items.map((n) => n.metadata?.name ?? ''),
  );
  const wanted = Array.from({ length: count }, (_, i) => nodeName(i));
  const toCreate = wanted.filter((name) => !existing.has(name));
  const toDelete = [...existing].filter((name) => !wanted.includes(name));
  // Batches of 20 keep the 2-core machine responsive while 100+ nodes are created.
  for (let i = 0; i < toCreate.length; i += 20) {
    await Promise.all(
      toCreate.slice(i, i + 20).map((name) => {
        const index = Number(name.slice('kwok-node-'.length));
        return core.createNode({ body: desiredNode(index) });
      }),
    );
  }
  await Promise.all(toDelete.map((name) => core.deleteNode({ name })));
}

/** Waits until `count` harness nodes are Ready and no longer carry the not-ready taint. */
export async function waitForNodes(kubeconfig: string, count: number, timeoutMs: number) {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  const core = kc.makeApiClient(CoreV1Api);
  const deadline = Date.now() + timeoutMs;
  let ready = 0;
  while (Date.now() < deadline) {
    const nodes = await core.listNode({ labelSelector: `${NODE_LABEL}=${NODE_LABEL_VALUE}` });
    ready = nodes.items.filter(isReady).length;
    if (ready === count && nodes.items.length === count) return;
    await sleep(500);
  }
  throw new ClusterError(
    'START_FAILED',
    `only ${ready} of ${count} kwok nodes became Ready in ${timeoutMs / 1000}s; check the kwok ` +
      'and kube-controller-manager logs (`npm run cluster -- status` prints their paths)',
  );
}

/** Counts harness nodes; used by `status`. */
export async function countNodes(kubeconfig: string): Promise<{ total: number; ready: number }> {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  const nodes = await kc
    .makeApiClient(CoreV1Api)
    .listNode({ labelSelector: `${NODE_LABEL}=${NODE_LABEL_VALUE}` });
  return { total: nodes.items.length, ready: nodes.items.filter(isReady).length };
}
