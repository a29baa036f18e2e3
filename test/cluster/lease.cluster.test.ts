// Must-show (issue 3): a Lease can be created and renewed, with optimistic concurrency, the way
// leader election uses it.
import { CoordinationV1Api, CoreV1Api, V1MicroTime } from '@kubernetes/client-node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connectTarget } from '../support/target.ts';
import { createTestNamespace, isConflict } from './testing.ts';

let leases: CoordinationV1Api;
let namespace: string;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  const { kubeConfig } = await connectTarget();
  leases = kubeConfig.makeApiClient(CoordinationV1Api);
  ({ namespace, cleanup } = await createTestNamespace(
    kubeConfig.makeApiClient(CoreV1Api),
    'lease',
  ));
});

afterAll(async () => cleanup?.());

it('creates a Lease and renews it; a stale renewal conflicts', async () => {
  // MicroTime fields must carry exactly six fractional digits: the apiserver rejects a plain
  // Date's toISOString() ("cannot parse .525Z as .000000"). client-node's V1MicroTime pads it.
  const acquired = new V1MicroTime(Date.now() - 1_000);
  const created = await leases.createNamespacedLease({
    namespace,
    body: {
      metadata: { name: 'leader' },
      spec: {
        holderIdentity: 'holder-a',
        leaseDurationSeconds: 15,
        acquireTime: acquired,
        renewTime: acquired,
        leaseTransitions: 0,
      },
    },
  });
  expect(created.spec?.holderIdentity).toBe('holder-a');

  const renewTime = new V1MicroTime();
  const renewed = await leases.replaceNamespacedLease({
    name: 'leader',
    namespace,
    body: { ...created, spec: { ...created.spec, acquireTime: acquired, renewTime } },
  });
  expect(renewed.metadata?.resourceVersion).not.toBe(created.metadata?.resourceVersion);
  expect(new Date(renewed.spec?.renewTime ?? 0).getTime()).toBeGreaterThan(acquired.getTime());

  // A second holder renewing from the old resourceVersion must lose (409), as in leader election.
  const stale = leases.replaceNamespacedLease({
    name: 'leader',
    namespace,
    body: {
      ...created,
      spec: { ...created.spec, acquireTime: renewTime, renewTime, holderIdentity: 'holder-b' },
    },
  });
  await expect(stale).rejects.toSatisfy(isConflict);
});
