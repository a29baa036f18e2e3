// Leader election against the real kube-apiserver of test/cluster (its Lease validation is the
// reference: MicroTime format, optimistic concurrency). Same cases as the embedded server.
import { KubeClient, kubeConfigFromFile, NAMESPACES } from '@agent-sandbox/kube';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe } from 'vitest';
import { clusterKubeconfig } from '@agent-sandbox/kube/testing';
import { leaderElectionCases } from './leader-election.cases.ts';

let client: KubeClient;
const namespace = `le-${randomBytes(4).toString('hex')}`;

beforeAll(async () => {
  const kubeconfig = clusterKubeconfig();
  client = new KubeClient({ config: kubeConfigFromFile(kubeconfig) });
  await client.create(NAMESPACES, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: namespace },
  });
});
afterAll(async () => {
  await client?.delete(NAMESPACES, undefined, namespace).catch(() => undefined);
  await client?.close();
});

describe('leader election (real kube-apiserver)', () => {
  leaderElectionCases(() => ({ client, namespace }));
});
