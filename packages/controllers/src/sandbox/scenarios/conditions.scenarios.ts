// Spec §21.1 TestComputeConditions, end to end: the test arranges Pods, Services and PVCs in the
// API server, scripts the Pod status as a kubelet would, and reads the conditions the running
// controller wrote — with upstream's exact condition reasons and messages (spec §8.1). The
// Suspended-mode lines are in
// conditions.suspended.scenarios.ts.
//
// Not producible against a real API server (kept as unit tests in conditions.test.ts):
// "no pod, service required but missing" and "no pod, service present": in Running mode the
// reconciler creates the Pod in the same pass that computes the conditions, so "Pod does not
// exist" is never persisted unless the create failed — and then Ready is ReconcilerError.
import { Labels, nameHash } from '@agent-sandbox/api';
import { PERSISTENT_VOLUME_CLAIMS, PODS, SERVICES, type KubeClient } from '@agent-sandbox/kube';
import type { KubeObject, PersistentVolumeClaim, Pod, Service } from '@agent-sandbox/kube-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestTarget } from '../../testing/target.ts';
import {
  createForeignOwner,
  gone,
  openScenarioWorld,
  sandboxControllerRef,
  scriptedPod,
  scriptedSandbox,
  setPodStatus,
  waitForCondition,
  waitForPod,
  type ScenarioWorld,
} from '../../testing/harness.ts';
import { SANDBOXES } from '../sandbox-reconciler.ts';

export const NOT_SUSPENDED = {
  status: 'False',
  reason: 'NotSuspended',
  message: 'Sandbox is not suspended',
} as const;

/** A Sandbox on the scripted scheduler, its Pod created by the controller, with `status` set. */
async function launchWithPodStatus(
  world: ScenarioWorld,
  name: string,
  status: NonNullable<Pod['status']>,
  spec: Parameters<typeof scriptedSandbox>[2] = { service: true },
): Promise<void> {
  await world.client.create(SANDBOXES, scriptedSandbox(world.ns, name, spec));
  await waitForPod(world.client, world.ns, name);
  await setPodStatus(world.client, world.ns, name, status);
}

async function suspend(client: KubeClient, ns: string, name: string): Promise<void> {
  await client.patch(SANDBOXES, ns, name, {
    type: 'merge',
    body: { spec: { operatingMode: 'Suspended' } },
  });
}

export function defineConditionsScenarios(target: TestTarget): void {
  describe(`Sandbox conditions §8.1 (${target})`, () => {
    let world: ScenarioWorld;
    beforeAll(async () => {
      world = await openScenarioWorld(target);
    });
    afterAll(async () => {
      await world?.close();
    });

    describe.concurrent('TestComputeConditions', () => {
      it('TestComputeConditions: pod Pending → "Pod exists with phase: Pending; Service Exists" (+ PodScheduled Unknown)', async () => {
        await launchWithPodStatus(world, 'pending', { phase: 'Pending' });
        const s = await waitForCondition(world.client, world.ns, 'pending', 'Ready', {
          message: 'Pod exists with phase: Pending; Service Exists',
        });
        const generation = s.metadata.generation;
        expect(s.status?.conditions?.map((c) => c.type)).toEqual([
          'Suspended',
          'PodScheduled',
          'Ready',
        ]);
        const byType = Object.fromEntries((s.status?.conditions ?? []).map((c) => [c.type, c]));
        expect(byType['Suspended']).toMatchObject({
          ...NOT_SUSPENDED,
          observedGeneration: generation,
        });
        expect(byType['PodScheduled']).toMatchObject({
          status: 'Unknown',
          reason: 'PodSchedulingUnknown',
          message: 'Pod has not reported a PodScheduled condition yet',
          observedGeneration: generation,
        });
        expect(byType['Ready']).toMatchObject({
          status: 'False',
          reason: 'DependenciesNotReady',
          observedGeneration: generation,
        });
      });

      it('TestComputeConditions: pod Running not Ready → "Pod is Running but not Ready"', async () => {
        await launchWithPodStatus(world, 'warming', {
          phase: 'Running',
          conditions: [{ type: 'Ready', status: 'False', reason: 'ContainersNotReady' }],
        });
        await waitForCondition(world.client, world.ns, 'warming', 'Ready', {
          status: 'False',
          reason: 'DependenciesNotReady',
          message: 'Pod is Running but not Ready; Service Exists',
        });
      });

      it('TestComputeConditions: pod Ready without IPs → not ready, "Pod is Ready but has no podIPs yet"', async () => {
        await launchWithPodStatus(world, 'no-ip', {
          phase: 'Running',
          conditions: [{ type: 'Ready', status: 'True' }],
        });
        const s = await waitForCondition(world.client, world.ns, 'no-ip', 'Ready', {
          status: 'False',
          reason: 'DependenciesNotReady',
          message: 'Pod is Ready but has no podIPs yet; Service Exists',
        });
        expect(s.status?.podIPs).toBeUndefined();
      });

      it('TestComputeConditions: pod phase Unknown → "Pod exists with phase: Unknown; Service Exists"', async () => {
        await launchWithPodStatus(world, 'lost', { phase: 'Unknown' });
        await waitForCondition(world.client, world.ns, 'lost', 'Ready', {
          status: 'False',
          reason: 'DependenciesNotReady',
          message: 'Pod exists with phase: Unknown; Service Exists',
        });
      });

      it('TestComputeConditions: pod Failed → Ready PodFailed + Finished True/PodFailed', async () => {
        await launchWithPodStatus(world, 'failed', { phase: 'Failed' });
        const s = await waitForCondition(world.client, world.ns, 'failed', 'Ready', {
          status: 'False',
          reason: 'PodFailed',
          message: 'Pod failed',
        });
        expect(s.status?.conditions?.find((c) => c.type === 'Finished')).toMatchObject({
          status: 'True',
          reason: 'PodFailed',
          message: 'Pod failed',
        });
      });

      it('TestComputeConditions: pod Succeeded → Ready PodSucceeded + Finished True/PodSucceeded', async () => {
        await launchWithPodStatus(world, 'done', { phase: 'Succeeded' });
        const s = await waitForCondition(world.client, world.ns, 'done', 'Ready', {
          status: 'False',
          reason: 'PodSucceeded',
          message: 'Pod completed successfully',
        });
        expect(s.status?.conditions?.find((c) => c.type === 'Finished')).toMatchObject({
          status: 'True',
          reason: 'PodSucceeded',
          message: 'Pod completed successfully',
        });
        // The terminal Pod is kept, not recreated (§11.10).
        const pod = await world.client.get<Pod & KubeObject>(PODS, world.ns, 'done');
        expect(pod.status?.phase).toBe('Succeeded');
      });

      it('TestComputeConditions: foreign terminal pod does not produce Finished', async () => {
        const { client, ns } = world;
        const owner = await createForeignOwner(client, ns, 'owner-of-alien');
        await client.create(PODS, scriptedPod(ns, 'alien', { ownerReferences: [owner] }));
        await setPodStatus(client, ns, 'alien', { phase: 'Succeeded' });
        await client.create(SANDBOXES, scriptedSandbox(ns, 'alien'));
        const s = await waitForCondition(client, ns, 'alien', 'Ready', {
          status: 'False',
          reason: 'ReconcilerError',
          message: `Error seen: pod "alien" is owned by ConfigMap/owner-of-alien (UID: ${owner.uid}), not by sandbox "alien"`,
        });
        // The refused Pod is no Pod of this Sandbox: the pod step failed without one.
        expect(s.status?.conditions?.map((c) => c.type)).toEqual([
          'Suspended',
          'PodScheduled',
          'Ready',
        ]);
        expect(s.status?.podIPs).toBeUndefined();
        // Suspended, the foreign Pod is left alone without an error: still no Finished.
        await suspend(client, ns, 'alien');
        const suspended = await waitForCondition(client, ns, 'alien', 'Suspended', {
          reason: 'PodNotOwned',
        });
        expect(suspended.status?.conditions?.map((c) => c.type)).toEqual(['Suspended', 'Ready']);
      });

      it('TestComputeConditions: running, pod reconcile failed → PodScheduled Unknown', async () => {
        const { client, ns } = world;
        const owner = await createForeignOwner(client, ns, 'owner-of-held');
        await client.create(PODS, scriptedPod(ns, 'held', { ownerReferences: [owner] }));
        await client.create(SANDBOXES, scriptedSandbox(ns, 'held'));
        const s = await waitForCondition(client, ns, 'held', 'Ready', {
          status: 'False',
          reason: 'ReconcilerError',
        });
        expect(s.status?.conditions?.find((c) => c.type === 'PodScheduled')).toMatchObject({
          status: 'Unknown',
          reason: 'PodSchedulingUnknown',
          message: 'Pod state is unknown. Pod scheduling cannot be determined',
        });
        expect(s.status?.conditions?.find((c) => c.type === 'Suspended')).toMatchObject(
          NOT_SUSPENDED,
        );
      });

      it('TestComputeConditions: reconcile error takes precedence over everything → ReconcilerError', async () => {
        const { client, ns } = world;
        const owner = await createForeignOwner(client, ns, 'owner-of-taken');
        await client.create<Service & KubeObject>(SERVICES, {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: 'taken', namespace: ns, ownerReferences: [owner] },
          spec: { clusterIP: 'None' },
        });
        await launchWithPodStatus(world, 'taken', { phase: 'Succeeded' });
        await waitForCondition(client, ns, 'taken', 'Finished', { reason: 'PodSucceeded' });
        const s = await waitForCondition(client, ns, 'taken', 'Ready', {
          status: 'False',
          reason: 'ReconcilerError',
          message: `Error seen: service "taken" is owned by ConfigMap/owner-of-taken (UID: ${owner.uid}), not by sandbox "taken"`,
        });
        // Finished is computed independently of Ready's precedence.
        expect(s.status?.conditions?.find((c) => c.type === 'Finished')?.status).toBe('True');
        expect(s.status?.service).toBeUndefined();
      });

      // The embedded server does not validate Pod specs yet, so only kube-apiserver refuses this.
      it.runIf(target === 'cluster')(
        'TestComputeConditions: running, pod create refused → ReconcilerError, PodScheduled Unknown',
        async () => {
          const { client, ns } = world;
          // A container name the Pod validation of the API server rejects: the create fails.
          const sandbox = scriptedSandbox(ns, 'rejected');
          const podSpec = sandbox.spec.podTemplate.spec;
          if (podSpec !== undefined) podSpec.containers = [{ name: 'Not_A_DNS_Label', image: 'x' }];
          await client.create(SANDBOXES, sandbox);
          const s = await waitForCondition(client, ns, 'rejected', 'Ready', {
            status: 'False',
            reason: 'ReconcilerError',
          });
          const byType = Object.fromEntries((s.status?.conditions ?? []).map((c) => [c.type, c]));
          expect(byType['Ready']?.message).toMatch(/^Error seen: .*Not_A_DNS_Label/s);
          expect(byType['PodScheduled']).toMatchObject({
            status: 'Unknown',
            reason: 'PodSchedulingUnknown',
            message: 'Pod state is unknown. Pod scheduling cannot be determined',
          });
          expect(byType['Suspended']).toMatchObject(NOT_SUSPENDED);
          expect(await gone(client, PODS, ns, 'rejected')).toBe(true);
        },
      );

      it('TestComputeConditions: pod Unschedulable → PodScheduled reason/message copied verbatim', async () => {
        const message = '0/3 nodes are available: 3 node(s) had untolerated taint {gpu: true}.';
        await launchWithPodStatus(world, 'unschedulable', {
          phase: 'Pending',
          conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message }],
        });
        await waitForCondition(world.client, world.ns, 'unschedulable', 'PodScheduled', {
          status: 'False',
          reason: 'Unschedulable',
          message,
        });
      });

      it('TestComputeConditions: SchedulingGated reason passed through', async () => {
        const message = 'Scheduling is blocked due to non-empty scheduling gates';
        await launchWithPodStatus(world, 'gated', {
          phase: 'Pending',
          conditions: [
            { type: 'PodScheduled', status: 'False', reason: 'SchedulingGated', message },
          ],
        });
        await waitForCondition(world.client, world.ns, 'gated', 'PodScheduled', {
          status: 'False',
          reason: 'SchedulingGated',
          message,
        });
      });

      it('TestComputeConditions: PodScheduled False with empty reason → fallback PodSchedulingUnknown; True → PodScheduled', async () => {
        await launchWithPodStatus(world, 'no-reason', {
          phase: 'Pending',
          conditions: [{ type: 'PodScheduled', status: 'False', message: 'waiting' }],
        });
        await waitForCondition(world.client, world.ns, 'no-reason', 'PodScheduled', {
          status: 'False',
          reason: 'PodSchedulingUnknown',
          message: 'waiting',
        });
        await setPodStatus(world.client, world.ns, 'no-reason', {
          conditions: [{ type: 'PodScheduled', status: 'True' }],
        });
        await waitForCondition(world.client, world.ns, 'no-reason', 'PodScheduled', {
          status: 'True',
          reason: 'PodScheduled',
        });
      });

      it('TestComputeConditions: multiple owned pods → MultiplePods message excludes other joined errors', async () => {
        const { client, ns } = world;
        const owner = await createForeignOwner(client, ns, 'owner-of-twins-pvc');
        // A PVC the Sandbox may not adopt: a second, independent reconcile error.
        await client.create<PersistentVolumeClaim & KubeObject>(PERSISTENT_VOLUME_CLAIMS, {
          apiVersion: 'v1',
          kind: 'PersistentVolumeClaim',
          metadata: { name: 'data-twins', namespace: ns, ownerReferences: [owner] },
          spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
        });
        const vct = {
          metadata: { name: 'data' },
          spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
        };
        const created = await client.create(
          SANDBOXES,
          scriptedSandbox(ns, 'twins', { volumeClaimTemplates: [vct] }),
        );
        await waitForCondition(client, ns, 'twins', 'Ready', { reason: 'ReconcilerError' });
        await waitForPod(client, ns, 'twins');
        await client.create(
          PODS,
          scriptedPod(ns, 'twins-extra', {
            labels: { [Labels.SandboxNameHash]: nameHash('twins') },
            ownerReferences: [sandboxControllerRef(created)],
          }),
        );
        await waitForCondition(client, ns, 'twins', 'Ready', {
          status: 'False',
          reason: 'MultiplePods',
          message:
            'multiple Pods (2) are controlled by this Sandbox; refusing to choose or create a Pod',
        });
      });
    });
  });
}
