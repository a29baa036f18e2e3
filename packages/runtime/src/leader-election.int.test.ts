// Leader election on the embedded API server.
// eslint-disable-next-line no-restricted-imports -- tests run on the embedded apiserver (our envtest)
import { startTestApiServer, type TestApiServer } from '@agent-sandbox/apiserver/testing';
import { KubeClient, kubeConfigFromFile, NAMESPACES } from '@agent-sandbox/kube';
import { afterAll, beforeAll, describe } from 'vitest';
import { leaderElectionCases } from './leader-election.cases.ts';

let server: TestApiServer;
let client: KubeClient;
beforeAll(async () => {
  server = await startTestApiServer();
  client = new KubeClient({ config: kubeConfigFromFile(server.kubeconfigPath) });
  await client.create(NAMESPACES, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'le' },
  });
});
afterAll(async () => {
  await client?.close();
  await server?.close();
});

describe('leader election (embedded API server)', () => {
  leaderElectionCases(() => ({ client, namespace: 'le' }));
});
