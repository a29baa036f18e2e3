// Leader election against the real kube-apiserver of test/cluster (its Lease validation is the
// reference: MicroTime format, optimistic concurrency). Same cases as the embedded server.
import { KubeClient, kubeConfigFromFile, NAMESPACES } from '@agent-sandbox/kube';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe } from 'vitest';
// eslint-disable-next-line no-restricted-imports -- the shared cluster harness lives in test/support
import { ensureCluster } from '../../../test/support/cluster.ts';
import { leaderElectionCases } from './leader-election.cases.ts';

let client: KubeClient;
const namespace = `le-${randomBytes(4).toString('hex')}`;

beforeAll(async () => {
  const { kubeconfig } = await ensureCluster();
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
