// Spec §21.1 TestComputeConditions, the Suspended-mode lines, end to end: suspending with an owned
// terminating Pod, with a Pod the Sandbox does not own, with two owned Pods, and resuming.
//
// Not producible against a real API server (kept as unit tests in conditions.test.ts):
// - "suspended, owned pod whose delete failed": a delete of an existing Pod by a cluster-admin
//   client has no failure an API server can be made to return.
// - "suspended, pod reconcile failed → Ready ReconcilerError": the Pod lookup reads the informer
//   cache and cannot fail; the one pod-step failure in Suspended mode is two owned Pods, shown
//   below (Suspended Unknown/PodStateUnknown, but Ready MultiplePods by precedence).
import { Labels, nameHash } from '@agent-sandbox/api';
import { PODS, type KubeClient } from '@agent-sandbox/kube';
import type { KubeObject, Pod } from '@agent-sandbox/kube-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestTarget } from '../../testing/target.ts';
import {
  TEST_FINALIZER,
  gone,
  openScenarioWorld,
  pokeAndSettle,
  sandboxControllerRef,
  scriptedPod,
  scriptedSandbox,
  waitForCondition,
  waitForPod,
  type ScenarioWorld,
} from '../../testing/harness.ts';
import { SANDBOXES } from '../sandbox-reconciler.ts';
import { NOT_SUSPENDED } from './conditions.scenarios.ts';

async function suspend(client: KubeClient, ns: string, name: string): Promise<void> {
  await client.patch(SANDBOXES, ns, name, {
    type: 'merge',
    body: { spec: { operatingMode: 'Suspended' } },
  });
}

export function defineSuspendedConditionsScenarios(target: TestTarget): void {
  describe(`Sandbox conditions §8.1, Suspended mode (${target})`, () => {
    let world: ScenarioWorld;
    beforeAll(async () => {
      world = await openScenarioWorld(target);
    });
    afterAll(async () => {
      await world?.close();
    });

    describe.concurrent('TestComputeConditions (Suspended)', () => {
      it('TestComputeConditions / TestReconcile: suspended with owned terminating pod → PodTerminating / "Sandbox is suspending"; then fully suspended → PodTerminated / "Sandbox is suspended"', async () => {
        const { client, ns } = world;
        await client.create(SANDBOXES, scriptedSandbox(ns, 'nap'));
        await waitForPod(client, ns, 'nap');
        await client.patch(PODS, ns, 'nap', {
          type: 'merge',
          body: { metadata: { finalizers: [TEST_FINALIZER] } },
        });
        await suspend(client, ns, 'nap');
        const suspending = await waitForCondition(client, ns, 'nap', 'Suspended', {
          status: 'False',
          reason: 'PodTerminating',
          message: 'Pod is terminating. Sandbox is suspending',
        });
        expect(suspending.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({
          status: 'False',
          reason: 'SandboxSuspended',
          message: 'Sandbox is suspending',
        });
        const held = await client.get<Pod & KubeObject>(PODS, ns, 'nap');
        expect(held.metadata.deletionTimestamp).toBeDefined();

        await client.patch(PODS, ns, 'nap', {
          type: 'merge',
          body: { metadata: { finalizers: [] } },
        });
        const suspended = await waitForCondition(client, ns, 'nap', 'Suspended', {
          status: 'True',
          reason: 'PodTerminated',
          message: 'Pod has been terminated. Sandbox is suspended',
        });
        expect(suspended.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({
          status: 'False',
          reason: 'SandboxSuspended',
          message: 'Sandbox is suspended',
        });
      });

      it('TestComputeConditions: suspended with unowned pod → PodNotOwned', async () => {
        const { client, ns } = world;
        const stranger = await client.create(PODS, scriptedPod(ns, 'stranger'));
        await client.create(
          SANDBOXES,
          scriptedSandbox(ns, 'stranger', { operatingMode: 'Suspended' }),
        );
        const s = await waitForCondition(client, ns, 'stranger', 'Suspended', {
          status: 'False',
          reason: 'PodNotOwned',
          message: 'Refused to delete pod because it is not owned by this sandbox',
        });
        expect(s.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({
          status: 'False',
          reason: 'SandboxSuspended',
        });
        await pokeAndSettle(world, 'stranger');
        const after = await client.get<Pod & KubeObject>(PODS, ns, 'stranger');
        expect(after.metadata.resourceVersion).toBe(stranger.metadata.resourceVersion);
      });

      it('TestComputeConditions: resuming with pod missing → NotSuspended, DependenciesNotReady', async () => {
        const { client, ns } = world;
        await client.create(SANDBOXES, scriptedSandbox(ns, 'wake', { operatingMode: 'Suspended' }));
        const asleep = await waitForCondition(client, ns, 'wake', 'Suspended', {
          status: 'True',
          reason: 'PodTerminated',
        });
        expect(await gone(client, PODS, ns, 'wake')).toBe(true);
        await client.patch(SANDBOXES, ns, 'wake', {
          type: 'merge',
          body: { spec: { operatingMode: 'Running' } },
        });
        const awake = await waitForCondition(client, ns, 'wake', 'Suspended', NOT_SUSPENDED);
        expect(awake.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({
          status: 'False',
          reason: 'DependenciesNotReady',
        });
        const generation = awake.metadata.generation ?? 0;
        expect(generation).toBeGreaterThan(asleep.metadata.generation ?? 0);
        for (const c of awake.status?.conditions ?? []) {
          expect(c.observedGeneration, c.type).toBe(generation);
        }
        await waitForPod(client, ns, 'wake');
      });

      it('TestComputeConditions: suspended, pod reconcile failed (two owned pods) → Suspended Unknown/PodStateUnknown', async () => {
        const { client, ns } = world;
        const created = await client.create(SANDBOXES, scriptedSandbox(ns, 'limbo'));
        await waitForPod(client, ns, 'limbo');
        await client.create(
          PODS,
          scriptedPod(ns, 'limbo-b', {
            labels: { [Labels.SandboxNameHash]: nameHash('limbo') },
            ownerReferences: [sandboxControllerRef(created)],
          }),
        );
        await waitForCondition(client, ns, 'limbo', 'Ready', { reason: 'MultiplePods' });
        await suspend(client, ns, 'limbo');
        const s = await waitForCondition(client, ns, 'limbo', 'Suspended', {
          status: 'Unknown',
          reason: 'PodStateUnknown',
          message: 'Pod state is unknown. Sandbox suspension cannot be confirmed',
        });
        expect(s.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({
          status: 'False',
          reason: 'MultiplePods',
        });
        // Fail closed: neither Pod is deleted.
        for (const name of ['limbo', 'limbo-b']) {
          const pod = await client.get<Pod & KubeObject>(PODS, ns, name);
          expect(pod.metadata.deletionTimestamp, name).toBeUndefined();
        }
      });
    });
  });
}
