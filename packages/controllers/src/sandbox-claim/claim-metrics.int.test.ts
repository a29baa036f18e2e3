// recordReadiness against the embedded API server: the claim-first-ready-at stamp is written once,
// and a claim deleted between its Ready status and the stamp ends the pass quietly.
// eslint-disable-next-line no-restricted-imports -- tests run on the embedded API server (our envtest)
import {
  readOurCrds,
  startTestApiServer,
  type TestApiServer,
} from '@agent-sandbox/apiserver/testing';
import { Annotations } from '@agent-sandbox/api';
import { KubeClient, kubeConfigFromFile } from '@agent-sandbox/kube';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_CLAIMS, type ClaimObject } from '../extensions/resources.ts';
import { createNamespace } from '../testing/harness.ts';
import { recordReadiness } from './claim-metrics.ts';

let server: TestApiServer;
let client: KubeClient;

beforeAll(async () => {
  server = await startTestApiServer({ crds: readOurCrds() });
  client = new KubeClient({ config: kubeConfigFromFile(server.kubeconfigPath) });
  await createNamespace(client, 'metrics');
});
afterAll(async () => {
  await client?.close();
  await server?.close();
});

const READY: NonNullable<ClaimObject['status']> = {
  conditions: [
    {
      type: 'Ready',
      status: 'True',
      reason: 'SandboxReady',
      message: '',
      lastTransitionTime: '2026-12-02T00:00:00Z',
    },
  ],
};

function claim(name: string): ClaimObject {
  return {
    apiVersion: 'extensions.agents.x-k8s.io/v1beta1',
    kind: 'SandboxClaim',
    metadata: { name, namespace: 'metrics' },
    spec: { warmPoolRef: { name: 'none' } },
  } as ClaimObject;
}

describe('recordReadiness', () => {
  it('stamps claim-first-ready-at on the first Ready status', async () => {
    const created = await client.create(SANDBOX_CLAIMS, claim('stamped'));
    const now = new Date('2026-12-02T01:02:03.456Z');
    const failed = await recordReadiness(
      client,
      undefined,
      created,
      READY,
      undefined,
      now,
      AbortSignal.timeout(10_000),
    );
    expect(failed).toBeUndefined();
    const read = (await client.get(SANDBOX_CLAIMS, 'metrics', 'stamped')) as ClaimObject;
    expect(read.metadata.annotations?.[Annotations.ClaimFirstReadyAt]).toBe(now.toISOString());
  });

  it('a claim deleted before its stamp is no error (the user killed it right after create)', async () => {
    const gone = claim('deleted');
    const failed = await recordReadiness(
      client,
      undefined,
      gone,
      READY,
      undefined,
      new Date(),
      AbortSignal.timeout(10_000),
    );
    expect(failed).toBeUndefined();
  });

  it('other failures (here: a cancelled pass) are still returned to the pass', async () => {
    const failed = await recordReadiness(
      client,
      undefined,
      claim('stamped'),
      READY,
      undefined,
      new Date(),
      AbortSignal.abort(),
    );
    expect(failed).toBeInstanceOf(Error);
  });
});
