// Spec §21.4 sandboxwarmpool_controller_test.go (replenish delay, refill rate pacing, eviction
// override) and sandboxwarmpool_overcreation_test.go (unschedulable members held) end to end,
// each with the manager flags it needs: --sandbox-warm-pool-replenish-delay,
// --sandbox-warm-pool-max-refill-rate, a short --sandbox-warm-pool-readiness-grace-period and
// --enable-warm-pool-eviction=false. Lower bounds only: a loaded machine makes the controller
// later, never earlier.
import { Annotations } from '@agent-sandbox/api';
import { EVENTS } from '@agent-sandbox/kube';
import type { Event, KubeObject } from '@agent-sandbox/kube-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestTarget } from '../../testing/target.ts';
import type { SandboxObj } from '../../extensions/resources.ts';
import { SANDBOXES } from '../../sandbox/child-writes.ts';
import {
  createPool,
  createTemplate,
  listMembers,
  newPool,
  newTemplate,
  poolSettled,
  watchArrivals,
} from '../../testing/extensions.ts';
import {
  SCRIPTED_SCHEDULER,
  eventually,
  openScenarioWorld,
  runningPodStatus,
  setPodStatus,
  testPodTemplate,
  type ScenarioWorld,
} from '../../testing/harness.ts';

const REPLENISH_DELAY_MS = 4_000;
const REFILL_RATE = 2;
const READINESS_GRACE_MS = 4_000;

const live = (members: SandboxObj[]): SandboxObj[] =>
  members.filter((s) => s.metadata.deletionTimestamp === undefined);

const uids = (members: SandboxObj[]): string[] => members.map((s) => s.metadata.uid ?? '');

export function defineRefillScenarios(target: TestTarget): void {
  describe(`SandboxWarmPool refill pacing (${target})`, () => {
    let world: ScenarioWorld;
    beforeAll(async () => {
      world = await openScenarioWorld(target, {
        extensions: {
          warmPoolReplenishDelayMs: REPLENISH_DELAY_MS,
          warmPoolMaxRefillRate: REFILL_RATE,
          warmPoolReadinessGraceMs: READINESS_GRACE_MS,
          enableWarmPoolEviction: false,
        },
      });
    });
    afterAll(async () => {
      await world?.close();
    });
    // Pods no scheduler or kubelet touches: the test decides their state.
    const scriptedTemplate = (name: string): ReturnType<typeof newTemplate> =>
      newTemplate(world.ns, name, {
        podTemplate: {
          ...testPodTemplate(),
          spec: { ...testPodTemplate().spec, schedulerName: SCRIPTED_SCHEDULER },
        },
      });

    describe.concurrent('TestSandboxWarmPoolReconcile', () => {
      it('TestSandboxWarmPoolReconcile: refill rate pacing — a new pool of 8 fills at --sandbox-warm-pool-max-refill-rate (2/s after a full bucket of 2)', async () => {
        await createTemplate(world, newTemplate(world.ns, 'tpl-rate'));
        const arrivals = watchArrivals(world, 'rate');
        await createPool(world, newPool(world.ns, 'rate', 'tpl-rate', { replicas: 8 }));
        await poolSettled(world, 'rate', 8);
        const members = live(await listMembers(world, 'rate'));
        expect(members).toHaveLength(8);
        const times = await arrivals.delivered(uids(members));
        arrivals.stop();
        // 2 at once, then one per 500 ms: the eighth is created 3 s after the first.
        expect(Math.max(...times) - Math.min(...times)).toBeGreaterThanOrEqual(2_000);
      });

      it('TestSandboxWarmPoolReconcile: replenish delay — a lost member is replaced only after the delay; the first fill never waits', async () => {
        await createTemplate(world, newTemplate(world.ns, 'tpl-delay'));
        const filled = Date.now();
        await createPool(world, newPool(world.ns, 'delay', 'tpl-delay', { replicas: 2 }));
        await poolSettled(world, 'delay', 2);
        expect(Date.now() - filled).toBeLessThan(60_000);
        const firstFill = await listMembers(world, 'delay');
        const [victim] = firstFill;
        const arrivals = watchArrivals(world, 'delay');
        const lost = Date.now();
        await world.client.delete(SANDBOXES, world.ns, victim?.metadata.name ?? '');
        const survivors = await eventually(async () => {
          const m = live(await listMembers(world, 'delay'));
          return m.length === 2 && !m.some((s) => s.metadata.uid === victim?.metadata.uid)
            ? m
            : undefined;
        }, 60_000);
        // The survivor of the first fill is on the watch too (its initial ADDED): the
        // replacement is the uid that was not a member when the victim was chosen.
        const first = new Set(uids(firstFill));
        const replacement = uids(survivors).filter((u) => !first.has(u));
        expect(replacement).toHaveLength(1);
        const [replaced] = await arrivals.delivered(replacement);
        arrivals.stop();
        expect((replaced ?? 0) - lost).toBeGreaterThanOrEqual(REPLENISH_DELAY_MS - 250);
      });

      it('TestReconcilePool_EvictionOverride: with --enable-warm-pool-eviction=false a member gets no safe-to-evict annotation unless its template sets one, which is kept', async () => {
        const withAnnotation = (value: string | undefined): ReturnType<typeof testPodTemplate> => {
          const podTemplate = testPodTemplate();
          if (value !== undefined)
            podTemplate.metadata = {
              ...podTemplate.metadata,
              annotations: { [Annotations.SafeToEvict]: value },
            };
          return podTemplate;
        };
        const cases = [
          { pool: 'evict-unset', value: undefined },
          { pool: 'evict-false', value: 'false' },
          { pool: 'evict-true', value: 'true' },
        ];
        for (const c of cases) {
          await createTemplate(
            world,
            newTemplate(world.ns, `tpl-${c.pool}`, { podTemplate: withAnnotation(c.value) }),
          );
          await createPool(world, newPool(world.ns, c.pool, `tpl-${c.pool}`, { replicas: 1 }));
        }
        for (const c of cases) {
          const [member] = await eventually(async () => {
            const m = live(await listMembers(world, c.pool));
            return m.length === 1 ? m : undefined;
          });
          expect(member?.spec.podTemplate.metadata?.annotations?.[Annotations.SafeToEvict]).toBe(
            c.value,
          );
        }
      });

      it('TestSandboxWarmPoolStuckGC: a member not Ready past the readiness grace (and not unschedulable) is deleted and replaced', async () => {
        await createTemplate(world, scriptedTemplate('tpl-gc'));
        await createPool(world, newPool(world.ns, 'gc', 'tpl-gc', { replicas: 1 }));
        const [stuck] = await eventually(async () => {
          const m = live(await listMembers(world, 'gc'));
          return m.length === 1 ? m : undefined;
        });
        const replacement = await eventually(async () => {
          const m = live(await listMembers(world, 'gc'));
          return m.length === 1 && m[0]?.metadata.uid !== stuck?.metadata.uid ? m[0] : undefined;
        }, 60_000);
        const age =
          Date.parse(replacement.metadata.creationTimestamp ?? '') -
          Date.parse(stuck?.metadata.creationTimestamp ?? '');
        // Timestamps have whole seconds: the replacement came no earlier than the grace.
        expect(age).toBeGreaterThanOrEqual(READINESS_GRACE_MS - 1_000);
      });

      it('TestSandboxWarmPoolOverCreation: a member unschedulable past the readiness grace is held (not replaced), with WarmPoolNotProgressing, then WarmPoolProgressing once it runs', async () => {
        await createTemplate(world, scriptedTemplate('tpl-stuck'));
        await createPool(world, newPool(world.ns, 'stuck', 'tpl-stuck', { replicas: 1 }));
        const [member] = await eventually(async () => {
          const m = live(await listMembers(world, 'stuck'));
          return m.length === 1 ? m : undefined;
        });
        const name = member?.metadata.name ?? '';
        await eventually(() =>
          setPodStatus(world.client, world.ns, name, {
            phase: 'Pending',
            conditions: [
              {
                type: 'PodScheduled',
                status: 'False',
                reason: 'Unschedulable',
                message: '0/1 nodes are available',
                lastTransitionTime: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
              },
            ],
          }).then(() => true),
        );
        const poolEvents = async (reason: string): Promise<(Event & KubeObject)[]> =>
          (await world.client.list<Event & KubeObject>(EVENTS, world.ns)).items.filter(
            (e) => e.involvedObject.name === 'stuck' && e.reason === reason,
          );
        const [warning] = await eventually(async () => {
          const e = await poolEvents('WarmPoolNotProgressing');
          return e.length > 0 ? e : undefined;
        }, 60_000);
        expect(warning).toMatchObject({
          type: 'Warning',
          action: 'Reconciling',
          message:
            '1/1 sandboxes are unschedulable past the 4s readiness grace period; holding them instead of replacing (replacements would be equally unschedulable)',
          involvedObject: { kind: 'SandboxWarmPool' },
        });
        // Held, not replaced as stuck.
        expect(live(await listMembers(world, 'stuck')).map((s) => s.metadata.name)).toEqual([name]);
        await setPodStatus(world.client, world.ns, name, runningPodStatus('10.244.7.7'));
        const [recovered] = await eventually(async () => {
          const e = await poolEvents('WarmPoolProgressing');
          return e.length > 0 ? e : undefined;
        }, 60_000);
        expect(recovered).toMatchObject({
          type: 'Normal',
          message: 'Warm pool is progressing again',
        });
        expect(await poolEvents('WarmPoolNotProgressing')).toHaveLength(1);
      });
    });
  });
}
