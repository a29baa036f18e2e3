// Spec §21.1 Pod lifecycle scenarios end to end: suspension (owned Pod deleted and kept
// terminating by a test finalizer, foreign and unowned Pods left alone), waiting for a terminating
// Pod, recovering from a stale pod-name annotation with a write-free second pass, and a foreign
// Pod never leaking its IPs or node into the Sandbox status.
import { Annotations, Labels, SandboxReason, nameHash } from '@agent-sandbox/api';
import { PODS } from '@agent-sandbox/kube';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestTarget } from '../../testing/target.ts';
import {
  TEST_FINALIZER,
  createForeignOwner,
  eventually,
  getSandbox,
  gone,
  openScenarioWorld,
  pokeAndSettle,
  releaseTestFinalizers,
  scriptedPod,
  scriptedSandbox,
  setPodStatus,
  waitForCondition,
  waitForPod,
  type PodObject,
  type ScenarioWorld,
} from '../../testing/harness.ts';
import { SANDBOXES } from '../sandbox-reconciler.ts';
import { podWhere } from './pod.scenarios.ts';

const TERMINATED = {
  status: 'True',
  reason: 'PodTerminated',
  message: 'Pod has been terminated. Sandbox is suspended',
} as const;

async function suspend(world: ScenarioWorld, name: string): Promise<void> {
  await world.client.patch(SANDBOXES, world.ns, name, {
    type: 'merge',
    body: { spec: { operatingMode: 'Suspended' } },
  });
}

async function annotationGone(world: ScenarioWorld, name: string): Promise<void> {
  await eventually(async () => {
    const s = await getSandbox(world.client, world.ns, name);
    return s.metadata.annotations?.[Annotations.PodName] === undefined ? true : undefined;
  });
}

/** Lets `name` (holding TEST_FINALIZER) go. */
async function release(world: ScenarioWorld, name: string): Promise<void> {
  const pod = await world.client.get<PodObject>(PODS, world.ns, name);
  await world.client.patch(PODS, world.ns, name, {
    type: 'merge',
    body: {
      metadata: {
        finalizers: (pod.metadata.finalizers ?? []).filter((f) => f !== TEST_FINALIZER),
      },
    },
  });
}

export function definePodLifecycleScenarios(target: TestTarget): void {
  describe(`Sandbox Pod lifecycle scenarios (${target})`, () => {
    let world: ScenarioWorld;
    beforeAll(async () => {
      world = await openScenarioWorld(target);
    });
    afterAll(async () => {
      await releaseTestFinalizers(world.client, world.ns).catch(() => undefined);
      await world?.close();
    });

    describe.concurrent('suspension', () => {
      it('TestReconcilePod: Suspended deletes the owned annotated Pod, which stays terminating until it is gone', async () => {
        await world.client.create(
          PODS,
          scriptedPod(world.ns, 'warm-held', {
            labels: { [Labels.Adoptable]: 'true' },
            finalizers: [TEST_FINALIZER],
          }),
        );
        const sandbox = scriptedSandbox(world.ns, 'suspends');
        sandbox.metadata.annotations = { [Annotations.PodName]: 'warm-held' };
        const created = await world.client.create(SANDBOXES, sandbox);
        await podWhere(world, 'warm-held', (p) =>
          (p.metadata.ownerReferences ?? []).some((r) => r.uid === created.metadata.uid),
        );
        await suspend(world, 'suspends');
        await podWhere(world, 'warm-held', (p) => p.metadata.deletionTimestamp !== undefined);
        await waitForCondition(world.client, world.ns, 'suspends', 'Suspended', {
          status: 'False',
          reason: 'PodTerminating',
          message: 'Pod is terminating. Sandbox is suspending',
        });
        await waitForCondition(world.client, world.ns, 'suspends', 'Ready', {
          status: 'False',
          reason: SandboxReason.SandboxSuspended,
          message: 'Sandbox is suspending',
        });
        await release(world, 'warm-held');
        await eventually(() => gone(world.client, PODS, world.ns, 'warm-held'));
        await waitForCondition(world.client, world.ns, 'suspends', 'Suspended', TERMINATED);
        await waitForCondition(world.client, world.ns, 'suspends', 'Ready', {
          reason: SandboxReason.SandboxSuspended,
          message: 'Sandbox is suspended',
        });
        await annotationGone(world, 'suspends');
        // No replacement while suspended.
        await pokeAndSettle(world, 'suspends');
        expect(await gone(world.client, PODS, world.ns, 'suspends')).toBe(true);
      });

      it('TestReconcilePod: Suspended with no Pod is a no-op', async () => {
        await world.client.create(
          SANDBOXES,
          scriptedSandbox(world.ns, 'born-suspended', { operatingMode: 'Suspended' }),
        );
        await waitForCondition(world.client, world.ns, 'born-suspended', 'Suspended', TERMINATED);
        await pokeAndSettle(world, 'born-suspended');
        const pods = await world.client.list<PodObject>(PODS, world.ns, {
          labelSelector: `${Labels.SandboxNameHash}=${nameHash('born-suspended')}`,
        });
        expect(pods.items).toEqual([]);
        expect(await gone(world.client, PODS, world.ns, 'born-suspended')).toBe(true);
      });

      it.each([
        ['owned by another controller', 'foreign'],
        ['unowned (even adoptable)', 'unowned'],
      ] as const)(
        'TestReconcilePod: Suspended leaves an annotated Pod %s alone and drops the annotation',
        async (_title, kind) => {
          const name = `susp-${kind}`;
          const ownerReferences =
            kind === 'foreign'
              ? [await createForeignOwner(world.client, world.ns, `${name}-owner`)]
              : undefined;
          const pre = await world.client.create(
            PODS,
            scriptedPod(world.ns, `${name}-pod`, {
              labels: { [Labels.Adoptable]: 'true' },
              ...(ownerReferences !== undefined ? { ownerReferences } : {}),
            }),
          );
          const sandbox = scriptedSandbox(world.ns, name, { operatingMode: 'Suspended' });
          sandbox.metadata.annotations = { [Annotations.PodName]: `${name}-pod` };
          await world.client.create(SANDBOXES, sandbox);
          await annotationGone(world, name);
          await waitForCondition(world.client, world.ns, name, 'Suspended', TERMINATED);
          await pokeAndSettle(world, name);
          const after = await world.client.get<PodObject>(PODS, world.ns, `${name}-pod`);
          expect(after.metadata.resourceVersion).toBe(pre.metadata.resourceVersion);
          expect(after.metadata.deletionTimestamp).toBeUndefined();
        },
      );

      it('TestReconcileChildResourcesSuspendedForeignPodDoesNotLeakIPOrNodeName', async () => {
        const owner = await createForeignOwner(world.client, world.ns, 'leak-owner');
        const pod = scriptedPod(world.ns, 'leak', { ownerReferences: [owner] });
        if (pod.spec) pod.spec.nodeName = 'scripted-node';
        await world.client.create(PODS, pod);
        await setPodStatus(world.client, world.ns, 'leak', {
          phase: 'Running',
          podIP: '10.9.9.9',
          podIPs: [{ ip: '10.9.9.9' }],
        });
        await world.client.create(
          SANDBOXES,
          scriptedSandbox(world.ns, 'leak', { operatingMode: 'Suspended' }),
        );
        const s = await waitForCondition(world.client, world.ns, 'leak', 'Suspended', {
          status: 'False',
          reason: 'PodNotOwned',
          message: 'Refused to delete pod because it is not owned by this sandbox',
        });
        expect(s.status?.podIPs).toBeUndefined();
        expect(s.status?.nodeName).toBeUndefined();
        expect(s.status?.selector).toBe(`${Labels.SandboxNameHash}=${nameHash('leak')}`);
        const after = await world.client.get<PodObject>(PODS, world.ns, 'leak');
        expect(after.metadata.deletionTimestamp).toBeUndefined();
      });
    });

    describe.concurrent('running', () => {
      it('TestReconcilePodWaitsForOwnedTerminatingPod: no replacement Pod until the terminating one is gone', async () => {
        await world.client.create(SANDBOXES, scriptedSandbox(world.ns, 'replaced'));
        const first = await waitForPod(world.client, world.ns, 'replaced');
        await world.client.patch(PODS, world.ns, 'replaced', {
          type: 'merge',
          body: { metadata: { finalizers: [TEST_FINALIZER] } },
        });
        await world.client.delete(PODS, world.ns, 'replaced');
        await podWhere(world, 'replaced', (p) => p.metadata.deletionTimestamp !== undefined);
        await pokeAndSettle(world, 'replaced');
        const pods = await world.client.list<PodObject>(PODS, world.ns, {
          labelSelector: `${Labels.SandboxNameHash}=${nameHash('replaced')}`,
        });
        expect(pods.items.map((p) => p.metadata.uid)).toEqual([first.metadata.uid]);
        await release(world, 'replaced');
        const second = await podWhere(
          world,
          'replaced',
          (p) => p.metadata.uid !== first.metadata.uid,
        );
        expect(second.metadata.deletionTimestamp).toBeUndefined();
      });

      it('TestReconcilePodRecoversOwnedPodWhenTrackedPodIsMissing: the owned Pod is used; the second pass is write-free', async () => {
        await world.client.create(SANDBOXES, scriptedSandbox(world.ns, 'recovers'));
        const pod = await waitForPod(world.client, world.ns, 'recovers');
        await world.client.patch(SANDBOXES, world.ns, 'recovers', {
          type: 'merge',
          body: { metadata: { annotations: { [Annotations.PodName]: 'vanished' } } },
        });
        await eventually(async () => {
          const s = await getSandbox(world.client, world.ns, 'recovers');
          return s.metadata.annotations?.[Annotations.PodName] === 'recovers' ? s : undefined;
        });
        const stable = await world.client.get<PodObject>(PODS, world.ns, 'recovers');
        const poked = await pokeAndSettle(world, 'recovers');
        const after = await getSandbox(world.client, world.ns, 'recovers');
        expect(after.metadata.resourceVersion).toBe(poked.metadata.resourceVersion);
        const podAfter = await world.client.get<PodObject>(PODS, world.ns, 'recovers');
        expect(podAfter.metadata.resourceVersion).toBe(stable.metadata.resourceVersion);
        expect(podAfter.metadata.uid).toBe(pod.metadata.uid);
        expect(await gone(world.client, PODS, world.ns, 'vanished')).toBe(true);
      });

      it('TestReconcilePodPrefersOwnedPodOverStaleAdoptionTarget: the owner UID beats a stale annotation', async () => {
        await world.client.create(SANDBOXES, scriptedSandbox(world.ns, 'prefers'));
        await waitForPod(world.client, world.ns, 'prefers');
        const target = await world.client.create(
          PODS,
          scriptedPod(world.ns, 'stale-target', { labels: { [Labels.Adoptable]: 'true' } }),
        );
        await world.client.patch(SANDBOXES, world.ns, 'prefers', {
          type: 'merge',
          body: { metadata: { annotations: { [Annotations.PodName]: 'stale-target' } } },
        });
        await eventually(async () => {
          const s = await getSandbox(world.client, world.ns, 'prefers');
          return s.metadata.annotations?.[Annotations.PodName] === 'prefers' ? s : undefined;
        });
        await pokeAndSettle(world, 'prefers');
        const after = await world.client.get<PodObject>(PODS, world.ns, 'stale-target');
        expect(after.metadata.resourceVersion).toBe(target.metadata.resourceVersion);
        expect(after.metadata.ownerReferences).toBeUndefined();
      });
    });
  });
}
