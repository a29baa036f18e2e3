// Spec §21.1 expiry scenarios end to end (§11.2 steps 6–7, §11.7): the TestReconcile expiry lines,
// TestSandboxExpiry's observable parts and TestSandboxShutdownExpiryUsesTwoPassAndPreservesFinishedCondition.
//
// Kept as unit tests (expiry.test.ts): TestSandboxExpiry "nil → no requeue" and "+500ms → 2s
// minimum" — a requeue interval is not observable from the API server when other events (the
// Pod's creation, status writes) also trigger passes. "future → exact remaining" is shown by the
// expiry taking effect at shutdownTime with no other event to wake the controller.
import { Annotations, Labels } from '@agent-sandbox/api';
import { PERSISTENT_VOLUME_CLAIMS, PODS, SERVICES } from '@agent-sandbox/kube';
import type { KubeObject, Pod } from '@agent-sandbox/kube-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestTarget } from '../../testing/target.ts';
import {
  condition,
  createForeignOwner,
  eventually,
  getSandbox,
  gone,
  openScenarioWorld,
  pokeAndSettle,
  scriptedPod,
  scriptedSandbox,
  setPodStatus,
  waitForCondition,
  waitForPod,
  watchSandbox,
  type SandboxObject,
  type ScenarioWorld,
} from '../../testing/harness.ts';
import { SANDBOXES } from '../sandbox-reconciler.ts';

type PodObject = Pod & KubeObject;

const EXPIRED = {
  status: 'False',
  reason: 'SandboxExpired',
  message: 'Sandbox has expired',
} as const;

/** An RFC 3339 time (whole seconds, as metav1.Time) at least `ms` from now. */
function secondsFromNow(ms: number): string {
  const at = Math.ceil((Date.now() + ms) / 1000) * 1000;
  return new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

const PAST = '2020-01-01T00:00:00Z';

/**
 * Moves the Sandbox's shutdownTime into the past once the test has seen what must come before
 * the expiry: a shutdownTime a few seconds ahead raced the test (on a loaded machine the Sandbox
 * expired before its Pod was seen, and the Delete case found neither Pod nor Sandbox).
 */
async function expireNow(client: ScenarioWorld['client'], ns: string, name: string) {
  await client.patch(SANDBOXES, ns, name, {
    type: 'merge',
    body: { spec: { shutdownTime: PAST } },
  });
}

function isExpired(s: SandboxObject): boolean {
  return condition(s, 'Ready')?.reason === 'SandboxExpired';
}

export function defineExpiryScenarios(target: TestTarget): void {
  describe(`Sandbox expiry §11.7 (${target})`, () => {
    let world: ScenarioWorld;
    beforeAll(async () => {
      world = await openScenarioWorld(target);
    });
    afterAll(async () => {
      await world?.close();
    });

    describe.concurrent('TestReconcile expiry', () => {
      it('TestReconcile: expired Retain → pod/service deleted, status cleared to conditions, Ready SandboxExpired (PVCs remain)', async () => {
        const { client, ns } = world;
        await client.create(
          SANDBOXES,
          scriptedSandbox(ns, 'retain', {
            service: true,
            shutdownPolicy: 'Retain',
            volumeClaimTemplates: [
              {
                metadata: { name: 'home' },
                spec: {
                  accessModes: ['ReadWriteOnce'],
                  resources: { requests: { storage: '1Gi' } },
                },
              },
            ],
          }),
        );
        await waitForPod(client, ns, 'retain');
        await setPodStatus(client, ns, 'retain', {
          phase: 'Running',
          podIPs: [{ ip: '10.3.0.1' }],
        });
        const running = await eventually(async () => {
          const s = await getSandbox(client, ns, 'retain');
          return s.status?.podIPs !== undefined && s.status.service !== undefined ? s : undefined;
        });
        expect(isExpired(running)).toBe(false);
        await expireNow(client, ns, 'retain');

        await eventually(() => gone(client, PODS, ns, 'retain'));
        await eventually(() => gone(client, SERVICES, ns, 'retain'));
        const expired = await eventually(async () => {
          const s = await getSandbox(client, ns, 'retain');
          return isExpired(s) && s.status?.selector === undefined ? s : undefined;
        });
        expect(Object.keys(expired.status ?? {})).toEqual(['conditions']);
        expect(condition(expired, 'Ready')).toMatchObject(EXPIRED);
        expect(condition(expired, 'Suspended')?.reason).toBe('NotSuspended');
        expect(condition(expired, 'PodScheduled')).toBeUndefined();
        const pvc = await client.get(PERSISTENT_VOLUME_CLAIMS, ns, 'home-retain');
        expect(pvc.metadata.deletionTimestamp).toBeUndefined();
      });

      it('TestReconcile: expired Retain deletes an adopted warm pod referenced by pod-name annotation', async () => {
        const { client, ns } = world;
        await client.create(
          PODS,
          scriptedPod(ns, 'warm-7', { labels: { [Labels.Adoptable]: 'true' } }),
        );
        const sandbox = scriptedSandbox(ns, 'adopter', { shutdownPolicy: 'Retain' });
        sandbox.metadata.annotations = { [Annotations.PodName]: 'warm-7' };
        const created = await client.create(SANDBOXES, sandbox);
        await eventually(async () => {
          const pod = await client.get<PodObject>(PODS, ns, 'warm-7');
          return pod.metadata.ownerReferences?.[0]?.uid === created.metadata.uid ? pod : undefined;
        });
        await expireNow(client, ns, 'adopter');
        await eventually(() => gone(client, PODS, ns, 'warm-7'));
        await waitForCondition(client, ns, 'adopter', 'Ready', EXPIRED);
        expect(await gone(client, PODS, ns, 'adopter')).toBe(true);
      });

      it('TestReconcile: expired Delete → Sandbox deleted', async () => {
        const { client, ns } = world;
        await client.create(
          SANDBOXES,
          scriptedSandbox(ns, 'ephemeral', { shutdownPolicy: 'Delete' }),
        );
        await waitForPod(client, ns, 'ephemeral');
        await expireNow(client, ns, 'ephemeral');
        await eventually(() => gone(client, SANDBOXES, ns, 'ephemeral'));
        await eventually(() => gone(client, PODS, ns, 'ephemeral'));
      });

      it('TestReconcile: expired — pod owned by another controller not deleted; unowned pod not deleted', async () => {
        const { client, ns } = world;
        const owner = await createForeignOwner(client, ns, 'owner-of-kept');
        const foreign = await client.create<PodObject>(
          PODS,
          scriptedPod(ns, 'kept-foreign', { ownerReferences: [owner] }),
        );
        const unowned = await client.create<PodObject>(PODS, scriptedPod(ns, 'kept-unowned'));
        for (const name of ['kept-foreign', 'kept-unowned']) {
          await client.create(
            SANDBOXES,
            scriptedSandbox(ns, name, { shutdownTime: PAST, shutdownPolicy: 'Retain' }),
          );
        }
        for (const name of ['kept-foreign', 'kept-unowned']) {
          await waitForCondition(client, ns, name, 'Ready', EXPIRED);
          await pokeAndSettle(world, name); // one more (teardown) pass after the expired mark
        }
        for (const before of [foreign, unowned]) {
          const after = await client.get<PodObject>(PODS, ns, before.metadata.name ?? '');
          expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
        }
      });

      it('TestReconcile: expired with nothing to delete → fine', async () => {
        const { client, ns } = world;
        await client.create(
          SANDBOXES,
          scriptedSandbox(ns, 'nothing', { shutdownTime: PAST, shutdownPolicy: 'Retain' }),
        );
        const s = await waitForCondition(client, ns, 'nothing', 'Ready', EXPIRED);
        // The first pass marks the expiry before any child is made: there never was a Pod.
        expect(condition(s, 'Suspended')).toBeUndefined();
        const settled = await pokeAndSettle(world, 'nothing');
        const after = await getSandbox(client, ns, 'nothing');
        expect(after.metadata.resourceVersion).toBe(settled.metadata.resourceVersion);
        expect(await gone(client, PODS, ns, 'nothing')).toBe(true);
      });

      it('TestSandboxExpiry: a future shutdownTime takes effect at that time, with no other event', async () => {
        const { client, ns } = world;
        const shutdownTime = secondsFromNow(4_000);
        const created = await client.create(
          SANDBOXES,
          scriptedSandbox(ns, 'timer', { shutdownTime, shutdownPolicy: 'Retain' }),
        );
        await waitForPod(client, ns, 'timer');
        // Until shutdownTime the Sandbox is not expired…
        while (Date.now() < Date.parse(shutdownTime) - 300) {
          expect(isExpired(await getSandbox(client, ns, 'timer'))).toBe(false);
          await new Promise((r) => setTimeout(r, 200));
        }
        // …and the pass the controller scheduled for shutdownTime (nothing else happens to the
        // Sandbox now, and the controller has no periodic resync) marks it. The slack is for a
        // loaded machine, not a timing target: without that requeue it would never be marked.
        await waitForCondition(
          client,
          ns,
          'timer',
          'Ready',
          EXPIRED,
          Date.parse(shutdownTime) - Date.now() + 30_000,
        );
        expect(created.spec.shutdownTime).toBe(shutdownTime);
      });

      for (const phase of ['Succeeded', 'Failed'] as const) {
        it(`TestSandboxShutdownExpiryUsesTwoPassAndPreservesFinishedCondition (${phase} pod): first pass only marks expired, second deletes; Finished kept`, async () => {
          const { client, ns } = world;
          const name = `two-pass-${phase.toLowerCase()}`;
          const created = await client.create(
            SANDBOXES,
            scriptedSandbox(ns, name, { shutdownPolicy: 'Retain' }),
          );
          const writes = watchSandbox(client, ns, name, created.metadata.resourceVersion ?? '');
          try {
            await waitForPod(client, ns, name);
            await setPodStatus(client, ns, name, {
              phase,
              conditions: [{ type: 'PodScheduled', status: 'True', reason: 'Scheduled' }],
            });
            const finished = await waitForCondition(client, ns, name, 'Finished', {
              status: 'True',
              reason: phase === 'Succeeded' ? 'PodSucceeded' : 'PodFailed',
            });
            expect(condition(finished, 'PodScheduled')?.status).toBe('True');
            await expireNow(client, ns, name);
            await eventually(() => gone(client, PODS, ns, name));
            const cleared = await eventually(async () => {
              const s = await getSandbox(client, ns, name);
              return isExpired(s) && s.status?.selector === undefined ? s : undefined;
            });
            expect(condition(cleared, 'Finished')).toEqual(condition(finished, 'Finished'));
            // One condition of each type. Their order depends on which pass first saw the Pod
            // finished (a loaded machine can merge the launch and the finish into one write).
            expect(cleared.status?.conditions?.map((c) => c.type).sort()).toEqual([
              'Finished',
              'Ready',
              'Suspended',
            ]);

            // Pass one persisted only the mark: the status still held the selector then.
            const firstExpired = await eventually(() => writes.seen.find(isExpired));
            expect(firstExpired.status?.selector).toBeDefined();
            expect(condition(firstExpired, 'PodScheduled')).toBeUndefined();
            expect(condition(firstExpired, 'Finished')?.status).toBe('True');
          } finally {
            await writes.stop();
          }
        });
      }
    });
  });
}
