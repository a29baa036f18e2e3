// A RuntimeClass (node.k8s.io/v1) naming one of the node agent's runtime handlers, as `up` makes them.
import type { KubeClient } from '@agent-sandbox/kube';
import type { KubeObject } from '@agent-sandbox/kube-types';
import { RUNTIME_CLASSES } from '../node/node-agent.ts';

export async function createRuntimeClass(
  client: KubeClient,
  name: string,
  handler: string,
): Promise<void> {
  await client.create(RUNTIME_CLASSES, {
    apiVersion: 'node.k8s.io/v1',
    kind: 'RuntimeClass',
    metadata: { name },
    handler,
  } as KubeObject);
}
