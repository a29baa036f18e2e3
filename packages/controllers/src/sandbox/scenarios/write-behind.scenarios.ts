// Spec §21.2 writebehind_coalesce_test.go end to end (`--sandbox-write-behind-window`, §11.9): a
// claim adopting a warm Sandbox (its controller ref moves from the SandboxWarmPool to a
// SandboxClaim) makes the Pod's warm-pool label stale; that metadata patch is the deferrable write.
// The reconciler's clock is a hand-moved `now()` (timers stay real), so "inside the window" and
// "past the deadline" are decided by the test, not by wall-clock luck.
//
// §21.2 pod_cache_transform_test.go: the unit test ../pod-cache-transform.test.ts covers the
// function; the scenario below reads the running controller's Pod cache, and every other scenario
// runs with the transform on, which shows the metadata merge patches are unaffected.
import { Labels } from '@agent-sandbox/api';
import { PODS } from '@agent-sandbox/kube';
import type { OwnerReference } from '@agent-sandbox/kube-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestTarget } from '../../testing/target.ts';
import { HandMovedClock } from '../../testing/hand-moved-clock.ts';
import {
  eventually,
  markPodRunning,
  openScenarioWorld,
  patchAndSettle,
  pokeAndSettle,
  scriptedSandbox,
  startSandboxController,
  waitForCondition,
  type PodObject,
  type RunningController,
  type ScenarioWorld,
} from '../../testing/harness.ts';
import { SANDBOXES } from '../sandbox-reconciler.ts';
import { createExtensionsOwner, podWhere } from './pod.scenarios.ts';

const WINDOW_MS = 1_000;

/** Every version of one Pod a watch delivers from `fromResourceVersion` on, until stop(). */
function watchPod(world: ScenarioWorld, name: string, fromResourceVersion: string) {
  const abort = new AbortController();
  const seen: PodObject[] = [];
  const running = (async () => {
    const events = world.client.watch<PodObject>(PODS, world.ns, {
      signal: abort.signal,
      fieldSelector: `metadata.name=${name}`,
      resourceVersion: fromResourceVersion,
    });
    for await (const event of events) if (event.type === 'MODIFIED') seen.push(event.object);
  })();
  return {
    /** Versions in which the warm-pool label was removed (the deferred patch). */
    labelRemovals: () =>
      seen.filter((p) => p.metadata.labels?.[Labels.WarmPoolSandbox] === undefined).length,
    stop: async () => {
      abort.abort();
      await running.catch(() => undefined);
    },
  };
}

/** A warm Sandbox: controller ref to a SandboxWarmPool, its Pod labelled as a pool member. */
async function warmSandbox(
  world: ScenarioWorld,
  name: string,
): Promise<{ pod: PodObject; claim: OwnerReference }> {
  const pool = await createExtensionsOwner(world, 'SandboxWarmPool', `${name}-pool`);
  const claim = await createExtensionsOwner(world, 'SandboxClaim', `${name}-claim`);
  const sandbox = scriptedSandbox(world.ns, name);
  sandbox.metadata.labels = { [Labels.WarmPoolSandbox]: 'h-pool' };
  sandbox.metadata.ownerReferences = [pool];
  await world.client.create(SANDBOXES, sandbox);
  const pod = await podWhere(
    world,
    name,
    (p) => p.metadata.labels?.[Labels.WarmPoolSandbox] === 'h-pool',
  );
  return { pod, claim };
}

async function markPodRunningWhenCreated(world: ScenarioWorld, name: string): Promise<void> {
  await eventually(() => world.client.get<PodObject>(PODS, world.ns, name));
  await markPodRunning(world.client, world.ns, name);
}

const adoptBody = (claim: OwnerReference): Record<string, unknown> => ({
  metadata: { ownerReferences: [claim] },
});

async function warmLabel(
  world: Pick<ScenarioWorld, 'client' | 'ns'>,
  name: string,
): Promise<string | undefined> {
  const pod = await world.client.get<PodObject>(PODS, world.ns, name);
  return pod.metadata.labels?.[Labels.WarmPoolSandbox];
}

export function defineWriteBehindScenarios(target: TestTarget): void {
  describe(`Sandbox write-behind scenarios (${target})`, () => {
    describe('writebehind_coalesce_test: window 0', () => {
      let world: ScenarioWorld;
      beforeAll(async () => {
        world = await openScenarioWorld(target, { writeBehindWindowMs: 0 });
      });
      afterAll(async () => {
        await world?.close();
      });

      it('writebehind_coalesce_test: window 0 is synchronous (the pass that sees the drift patches the Pod)', async () => {
        const { claim } = await warmSandbox(world, 'sync');
        await patchAndSettle(world, 'sync', adoptBody(claim));
        expect(await warmLabel(world, 'sync')).toBeUndefined();
      });
    });

    describe('pod_cache_transform_test: the running controller caches stripped Pods', () => {
      let world: ScenarioWorld;
      beforeAll(async () => {
        world = await openScenarioWorld(target);
      });
      afterAll(async () => {
        await world?.close();
      });

      it('pod_cache_transform_test: cached Pods lose managedFields, finalizers and spec but nodeName; keep labels, owners and status', async () => {
        await world.client.create(SANDBOXES, scriptedSandbox(world.ns, 'cached'));
        await markPodRunningWhenCreated(world, 'cached');
        const informer = world.controller.manager.getInformer<PodObject>(PODS);
        const cached = await eventually(() => {
          const p = informer.cache.get(`${world.ns}/cached`);
          return p?.status?.phase === 'Running' ? p : undefined;
        });
        const served = await world.client.get<PodObject>(PODS, world.ns, 'cached');
        expect(served.spec?.containers.length).toBe(1);
        expect(served.metadata.managedFields?.length).toBeGreaterThan(0);
        expect(cached.spec).toEqual({});
        expect(cached.metadata.managedFields).toBeUndefined();
        expect(cached.metadata.finalizers).toBeUndefined();
        expect(cached.metadata.labels).toEqual(served.metadata.labels);
        expect(cached.metadata.ownerReferences).toEqual(served.metadata.ownerReferences);
        expect(cached.status?.podIPs).toEqual(served.status?.podIPs);
      });
    });

    describe('writebehind_coalesce_test: window 1s', () => {
      const clock = new HandMovedClock();
      let world: ScenarioWorld;
      beforeAll(async () => {
        world = await openScenarioWorld(target, { writeBehindWindowMs: WINDOW_MS, clock });
      });
      afterAll(async () => {
        await world?.close();
      });

      it('writebehind_coalesce_test: adoption pod patch deferred (zero writes), readiness not gated, redeliveries do not re-arm, exactly one patch after the window', async () => {
        const { pod, claim } = await warmSandbox(world, 'coalesce');
        const writes = watchPod(world, 'coalesce', pod.metadata.resourceVersion ?? '0');
        try {
          await patchAndSettle(world, 'coalesce', adoptBody(claim));
          const deferred = await world.client.get<PodObject>(PODS, world.ns, 'coalesce');
          expect(deferred.metadata.resourceVersion).toBe(pod.metadata.resourceVersion);

          // The status write is not held back with the Pod patch.
          await markPodRunning(world.client, world.ns, 'coalesce');
          await waitForCondition(world.client, world.ns, 'coalesce', 'Ready', { status: 'True' });
          expect(await warmLabel(world, 'coalesce')).toBe('h-pool');

          // A redelivery inside the window must not re-arm it: 600 ms + 600 ms is past the
          // first deadline but not past one re-armed at 600 ms.
          clock.advance(600);
          await pokeAndSettle(world, 'coalesce');
          expect(await warmLabel(world, 'coalesce')).toBe('h-pool');
          clock.advance(600);
          await pokeAndSettle(world, 'coalesce');
          expect(await warmLabel(world, 'coalesce')).toBeUndefined();

          await pokeAndSettle(world, 'coalesce');
          expect(writes.labelRemovals()).toBe(1);
          const final = await world.client.get<PodObject>(PODS, world.ns, 'coalesce');
          expect(final.metadata.labels).toEqual({
            app: 'agent',
            [Labels.SandboxNameHash]: pod.metadata.labels?.[Labels.SandboxNameHash],
          });
        } finally {
          await writes.stop();
        }
      });

      it('writebehind_coalesce_test: the deferral requeues itself: past the deadline the patch lands with no further event', async () => {
        const { claim } = await warmSandbox(world, 'requeues');
        await patchAndSettle(world, 'requeues', adoptBody(claim));
        expect(await warmLabel(world, 'requeues')).toBe('h-pool');
        clock.advance(WINDOW_MS);
        // The requeue armed by the deferral (≤ 1 s of real time) is the only trigger left.
        await eventually(async () =>
          (await warmLabel(world, 'requeues')) === undefined ? true : undefined,
        );
      });

      it('writebehind_coalesce_test: a crash (lost clock) only restarts the window', async () => {
        const { claim } = await warmSandbox(world, 'crash');
        await patchAndSettle(world, 'crash', adoptBody(claim));
        clock.advance(600);
        await world.controller.stop();
        const restarted: RunningController = startSandboxController(world.client, world.ns, {
          writeBehindWindowMs: WINDOW_MS,
          clock,
        });
        const again = { client: world.client, ns: world.ns, controller: restarted };
        try {
          // The new process arms the window on its first pass (at +600 ms).
          await pokeAndSettle(again, 'crash');
          expect(await warmLabel(world, 'crash')).toBe('h-pool');
          clock.advance(600); // +1200: past the lost deadline, inside the restarted window
          await pokeAndSettle(again, 'crash');
          expect(await warmLabel(world, 'crash')).toBe('h-pool');
          clock.advance(500); // +1700: past the restarted window
          await pokeAndSettle(again, 'crash');
          expect(await warmLabel(world, 'crash')).toBeUndefined();
        } finally {
          await restarted.stop();
        }
      });
    });
  });
}
