// Spec §21.4 sandboxwarmpool_overcreation_test.go, the readiness-grace cases (§13.2 steps 5, 10,
// 11): stuck members replaced, unschedulable ones held with WarmPoolNotProgressing, the requeue a
// pass arms for the earliest grace deadline, the configurable grace and recheck, and their
// defaults. Single passes the test drives (testing/pool-passes.ts) over live informers of the
// target, with a hand-moved clock: a member's age is its server creationTimestamp against the
// pass's now(), so "5 minutes later" takes no 5 minutes. The jitter source is pinned to 0, which
// makes every requeue exact. No pool controller runs in this world (only the Sandbox controller,
// which gives each member its Pod); the Pods are on the scripted scheduler and the test reports
// their state, as a scheduler would.
import { EVENTS, PODS, isNotFound } from '@agent-sandbox/kube';
import type { Event, KubeObject, Pod } from '@agent-sandbox/kube-types';
import { describe, expect, it } from 'vitest';
import type { TestTarget } from '../../testing/target.ts';
import {
  SANDBOX_TEMPLATES,
  SANDBOX_WARM_POOLS,
  type PoolObject,
  type SandboxObj,
  type TemplateObject,
} from '../../extensions/resources.ts';
import { SANDBOXES } from '../../sandbox/child-writes.ts';
import { newMember } from '../member.ts';
import { DEFAULT_READINESS_GRACE_MS, isSandboxReady } from '../plan.ts';
import { DEFAULT_UNSCHEDULABLE_RECHECK_MS } from '../sandbox-warm-pool-reconciler.ts';
import {
  createPool,
  createTemplate,
  listMembers,
  newPool,
  newTemplate,
} from '../../testing/extensions.ts';
import { HandMovedClock } from '../../testing/hand-moved-clock.ts';
import {
  SCRIPTED_SCHEDULER,
  TEST_FINALIZER,
  eventually,
  runningPodStatus,
  setPodStatus,
  testPodTemplate,
  type PodObject,
  type ScenarioWorld,
} from '../../testing/harness.ts';
import { PoolPasses, type PoolPassSettings } from '../../testing/pool-passes.ts';
import { poolPassWorld } from './pool-pass-world.ts';

const SLACK_MS = 2_000; // added to a grace deadline (§13.2 step 5)
const WAIT_MS = 60_000;

type PodStatus = NonNullable<Pod['status']>;
const stamp = (): string => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
/** A Pod status whose only condition is PodScheduled as given. */
const scheduled = (status: string, reason?: string): PodStatus => ({
  phase: 'Pending',
  conditions: [
    {
      type: 'PodScheduled',
      status,
      ...(reason !== undefined ? { reason, message: 'scripted by the test' } : {}),
      lastTransitionTime: stamp(),
    },
  ],
});
const unschedulable = (): PodStatus => scheduled('False', 'Unschedulable');

const created = (s: SandboxObj): number => Date.parse(s.metadata.creationTimestamp ?? '');
const nameOf = (s: SandboxObj): string => s.metadata.name ?? '';
const uids = (members: SandboxObj[]): string[] => members.map((s) => s.metadata.uid ?? '').sort();
const live = (members: SandboxObj[]): SandboxObj[] =>
  members.filter((s) => s.metadata.deletionTimestamp === undefined);
const podScheduled = (o: { status?: { conditions?: { type: string }[] } }) =>
  o.status?.conditions?.find((c) => c.type === 'PodScheduled') as
    { status: string; reason?: string } | undefined;

export function defineGraceScenarios(target: TestTarget): void {
  describe(`SandboxWarmPool readiness grace, single passes on a hand-moved clock (${target})`, () => {
    let world: ScenarioWorld;
    let ip = 0;
    const passes = poolPassWorld(target, (w) => (world = w));

    interface Setup {
      p: PoolPasses;
      clock: HandMovedClock;
      pool: PoolObject;
      template: TemplateObject;
    }
    /** A scripted-scheduler template and a pool; passes (jitter pinned to 0) that have seen both. */
    const setUp = async (
      name: string,
      replicas: number,
      settings: PoolPassSettings = {},
    ): Promise<Setup> => {
      const base = testPodTemplate();
      const template = await createTemplate(
        world,
        newTemplate(world.ns, `tpl-${name}`, {
          podTemplate: { ...base, spec: { ...base.spec, schedulerName: SCRIPTED_SCHEDULER } },
        }),
      );
      const pool = await createPool(world, newPool(world.ns, name, `tpl-${name}`, { replicas }));
      const clock = new HandMovedClock();
      const p = await passes({ settings: { clock, random: () => 0, ...settings } });
      await eventually(
        () =>
          p.informers
            .getInformer<PoolObject>(SANDBOX_WARM_POOLS)
            .cache.get(`${world.ns}/${name}`) &&
          p.informers
            .getInformer<TemplateObject>(SANDBOX_TEMPLATES)
            .cache.get(`${world.ns}/tpl-${name}`),
      );
      return { p, clock, pool, template };
    };

    /**
     * Reports the member's Pod as `status` and waits until the Sandbox controller has mirrored
     * it (PodScheduled, and Ready for a running Pod) and the passes' caches hold the Sandbox
     * and Pod as the server does — so a pass's delete preconditions meet the current version.
     */
    const script = async (p: PoolPasses, member: SandboxObj, status?: PodStatus): Promise<void> => {
      const name = nameOf(member);
      await eventually(() => world.client.get(PODS, world.ns, name), WAIT_MS);
      if (status !== undefined) await setPodStatus(world.client, world.ns, name, status);
      await settled(p, name, (pod, sandbox) => {
        if (pod === undefined) return false;
        const want = podScheduled(pod);
        const got = podScheduled(sandbox);
        if (want === undefined) return got?.status === 'Unknown';
        const ready = pod.status?.conditions?.some(
          (c) => c.type === 'Ready' && c.status === 'True',
        );
        return (
          got?.status === want.status &&
          (want.reason === undefined || got.reason === want.reason) &&
          isSandboxReady(sandbox) === (ready === true)
        );
      });
    };
    const settled = (
      p: PoolPasses,
      name: string,
      check: (pod: PodObject | undefined, sandbox: SandboxObj) => boolean = () => true,
    ): Promise<true> =>
      eventually(async () => {
        const key = `${world.ns}/${name}`;
        const pod = await world.client
          .get<PodObject>(PODS, world.ns, name)
          .catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(err)));
        const sandbox = await world.client
          .get<SandboxObj>(SANDBOXES, world.ns, name)
          .catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(err)));
        if (sandbox === undefined) return true; // gone: nothing left to catch up with
        const cachedPod = p.informers.getInformer<PodObject>(PODS).cache.get(key);
        const cachedSandbox = p.informers.getInformer<SandboxObj>(SANDBOXES).cache.get(key);
        return cachedPod?.metadata.resourceVersion === pod?.metadata.resourceVersion &&
          cachedSandbox?.metadata.resourceVersion === sandbox.metadata.resourceVersion &&
          check(pod, sandbox)
          ? true
          : undefined;
      }, WAIT_MS);
    const poolEvents = async (pool: string): Promise<(Event & KubeObject)[]> =>
      (await world.client.list<Event & KubeObject>(EVENTS, world.ns)).items.filter(
        (e) => e.involvedObject.name === pool && e.reason?.startsWith('WarmPool'),
      );
    const reasons = async (pool: string): Promise<string[]> =>
      (await poolEvents(pool)).map((e) => `${e.type} ${e.reason}`);
    const status = async (pool: string): Promise<PoolObject['status']> =>
      (await world.client.get<PoolObject>(SANDBOX_WARM_POOLS, world.ns, pool)).status;
    /** Which of `names` the server still has, not terminating. */
    const present = async (names: string[]): Promise<string[]> => {
      const all = (await world.client.list<SandboxObj>(SANDBOXES, world.ns)).items;
      return live(all)
        .map(nameOf)
        .filter((n) => names.includes(n));
    };
    /**
     * Passes until none of `names` is left (at most 5): a delete whose precondition meets a
     * version the cache has not seen yet answers 409, and the pass after the cache caught up
     * deletes it — as the member's own event would bring that pass in a running controller.
     */
    const deletedByPasses = async (p: PoolPasses, pool: string, names: string[]): Promise<void> => {
      for (let i = 0; i < 5; i++) {
        await p.pass(pool);
        const left = await present(names);
        if (left.length === 0) return;
        for (const n of left) await settled(p, n);
      }
      expect(await present(names)).toEqual([]);
    };

    describe.concurrent('TestReconcilePool', () => {
      it('TestReconcilePool_YoungNotReadyArmsGraceRequeue: not-Ready members inside the grace arm a requeue for the earliest deadline (+2 s slack), jittered by at most +50%; a fully Ready pool arms none', async () => {
        const { p, clock } = await setUp('young', 2);
        await p.pass('young');
        const [a, b] = (await p.cacheHas('young', 2)) as [SandboxObj, SandboxObj];
        await script(p, a, runningPodStatus(`10.244.220.${++ip}`));
        await script(p, b);
        // A third member a second younger (creationTimestamps have whole seconds).
        await eventually(() =>
          Date.now() >= Math.max(created(a), created(b)) + 1_000 ? true : undefined,
        );
        await world.client.patch(SANDBOX_WARM_POOLS, world.ns, 'young', {
          type: 'merge',
          body: { spec: { replicas: 3 } },
        });
        await eventually(() =>
          p.informers.getInformer<PoolObject>(SANDBOX_WARM_POOLS).cache.get(`${world.ns}/young`)
            ?.spec.replicas === 3
            ? true
            : undefined,
        );
        await p.pass('young');
        const all = await p.cacheHas('young', 3);
        const c = all.find(
          (s) => s.metadata.uid !== a.metadata.uid && s.metadata.uid !== b.metadata.uid,
        );
        if (c === undefined) throw new Error('no third member');
        await script(p, c);
        expect(created(c)).toBeGreaterThan(created(b));
        clock.set(created(c) + 4 * 60_000);
        const left = (s: SandboxObj): number =>
          DEFAULT_READINESS_GRACE_MS - (clock.now() - created(s)) + SLACK_MS;
        // b is older than c, so its deadline is the earlier one; a is Ready and arms nothing.
        expect(left(b)).toBeLessThan(left(c));
        expect(await p.pass('young')).toEqual({ requeueAfterMs: left(b) });
        // The same pass with the largest jitter draw: later, never more than +50%.
        const jittered = await passes({ settings: { clock, random: () => 0.999 } });
        await jittered.cacheHas('young', 3);
        await settled(jittered, nameOf(c), () => true);
        const most = await jittered.pass('young');
        expect(most?.requeueAfterMs).toBeGreaterThan(left(b));
        expect(most?.requeueAfterMs).toBeLessThanOrEqual(left(b) * 1.5);
        await script(p, b, runningPodStatus(`10.244.220.${++ip}`));
        await script(p, c, runningPodStatus(`10.244.220.${++ip}`));
        expect(await p.pass('young')).toBeUndefined();
        expect(await status('young')).toMatchObject({ replicas: 3, readyReplicas: 3 });
      });

      it('TestReconcilePool_QuietClusterSelfScheduledGraceEvaluation: with no event between passes, the pass inside the grace arms the post-grace one (grace + 2 s); that one holds the unschedulable member with one WarmPoolNotProgressing, and the recheck pass adds none', async () => {
        const { p, clock } = await setUp('quiet', 1);
        await p.pass('quiet');
        const [m] = (await p.cacheHas('quiet', 1)) as [SandboxObj];
        await script(p, m, unschedulable());
        clock.set(created(m));
        const first = await p.pass('quiet');
        expect(first).toEqual({ requeueAfterMs: DEFAULT_READINESS_GRACE_MS + SLACK_MS });
        expect(await reasons('quiet')).toEqual([]);
        clock.advance(first?.requeueAfterMs ?? 0);
        const second = await p.pass('quiet');
        expect(second).toEqual({ requeueAfterMs: DEFAULT_UNSCHEDULABLE_RECHECK_MS });
        expect(uids(await listMembers(world, 'quiet'))).toEqual(uids([m]));
        expect(await reasons('quiet')).toEqual(['Warning WarmPoolNotProgressing']);
        clock.advance(second?.requeueAfterMs ?? 0);
        expect(await p.pass('quiet')).toEqual({ requeueAfterMs: DEFAULT_UNSCHEDULABLE_RECHECK_MS });
        expect(await reasons('quiet')).toEqual(['Warning WarmPoolNotProgressing']);
      });

      it('TestReconcilePool_ConfigurableGraceAndRecheck: with a 10m grace and a 30s recheck, a member 6m old is still warming (kept, requeue for the rest of the grace, no event); past the grace it is held and rechecked every 30s', async () => {
        const { p, clock } = await setUp('configured', 1, {
          readinessGraceMs: 10 * 60_000,
          unschedulableRecheckMs: 30_000,
        });
        await p.pass('configured');
        const [m] = (await p.cacheHas('configured', 1)) as [SandboxObj];
        await script(p, m, unschedulable());
        clock.set(created(m) + 6 * 60_000);
        const first = await p.pass('configured');
        expect(first).toEqual({ requeueAfterMs: 4 * 60_000 + SLACK_MS });
        expect(uids(await listMembers(world, 'configured'))).toEqual(uids([m]));
        expect(await reasons('configured')).toEqual([]);
        clock.advance(first?.requeueAfterMs ?? 0);
        expect(await p.pass('configured')).toEqual({ requeueAfterMs: 30_000 });
        expect(uids(await listMembers(world, 'configured'))).toEqual(uids([m]));
        const [warning] = await poolEvents('configured');
        expect(warning).toMatchObject({
          type: 'Warning',
          reason: 'WarmPoolNotProgressing',
          message:
            '1/1 sandboxes are unschedulable past the 10m0s readiness grace period; holding them instead of replacing (replacements would be equally unschedulable)',
        });
      });

      it('TestWarmPoolDefaults: zero settings mean the defaults — a 5m readiness grace (a member exactly 5m old is still warming) and a 1m unschedulable recheck', async () => {
        const { p, clock } = await setUp('defaults', 1, {
          readinessGraceMs: 0,
          unschedulableRecheckMs: 0,
        });
        await p.pass('defaults');
        const [m] = (await p.cacheHas('defaults', 1)) as [SandboxObj];
        await script(p, m, unschedulable());
        clock.set(created(m) + 300_000);
        expect(await p.pass('defaults')).toEqual({ requeueAfterMs: 2_000 });
        clock.advance(2_000);
        expect(await p.pass('defaults')).toEqual({ requeueAfterMs: 60_000 });
        const [warning] = await poolEvents('defaults');
        expect(warning?.message).toContain('past the 5m0s readiness grace period');
      });

      it('TestReconcilePool_UnschedulableStuckGC: an unschedulable member past the grace is held (no replacement, still a replica, one Warning across passes); once its Pod runs the hold clears with WarmPoolProgressing', async () => {
        const { p, clock } = await setUp('held', 1);
        await p.pass('held');
        const [m] = (await p.cacheHas('held', 1)) as [SandboxObj];
        await script(p, m, unschedulable());
        clock.set(created(m) + DEFAULT_READINESS_GRACE_MS + 1_000);
        expect(await p.pass('held')).toEqual({ requeueAfterMs: DEFAULT_UNSCHEDULABLE_RECHECK_MS });
        expect(uids(await listMembers(world, 'held'))).toEqual(uids([m]));
        expect(await status('held')).toMatchObject({ replicas: 1 });
        expect((await status('held'))?.readyReplicas).toBeUndefined();
        await p.pass('held');
        expect(await reasons('held')).toEqual(['Warning WarmPoolNotProgressing']);
        await script(p, m, runningPodStatus(`10.244.220.${++ip}`));
        expect(await p.pass('held')).toBeUndefined();
        expect(await status('held')).toMatchObject({ replicas: 1, readyReplicas: 1 });
        expect((await reasons('held')).sort()).toEqual([
          'Normal WarmPoolProgressing',
          'Warning WarmPoolNotProgressing',
        ]);
        const [recovered] = (await poolEvents('held')).filter((e) => e.type === 'Normal');
        expect(recovered?.message).toBe('Warm pool is progressing again');
      });

      it('TestReconcilePool_UnschedulableStuckGC: a member stuck past the grace whose Pod was scheduled is deleted, and the pass after its deletion is seen creates the replacement', async () => {
        const { p, clock } = await setUp('stuck', 1);
        await p.pass('stuck');
        const [m] = (await p.cacheHas('stuck', 1)) as [SandboxObj];
        await script(p, m, scheduled('True'));
        clock.set(created(m) + DEFAULT_READINESS_GRACE_MS + 1_000);
        await deletedByPasses(p, 'stuck', [nameOf(m)]);
        await eventually(() => (p.cachedMembers('stuck').length === 0 ? true : undefined), WAIT_MS);
        await p.pass('stuck');
        const [replacement] = live(await listMembers(world, 'stuck'));
        expect(replacement?.metadata.uid).toBeDefined();
        expect(replacement?.metadata.uid).not.toBe(m.metadata.uid);
        expect(await reasons('stuck')).toEqual([]);
      });

      it('TestReconcilePool_UnschedulableStuckGC: a member stuck past the grace with no Pod at all (suspended) is deleted as stuck', async () => {
        const { p, clock, pool, template } = await setUp('nopod', 1);
        const member = newMember(pool, template, { enableEviction: true });
        member.spec.operatingMode = 'Suspended';
        const m = await world.client.create(SANDBOXES, member);
        await p.cacheHas('nopod', 1);
        await expect(world.client.get(PODS, world.ns, nameOf(m))).rejects.toThrow();
        clock.set(created(m) + DEFAULT_READINESS_GRACE_MS + 1_000);
        await deletedByPasses(p, 'nopod', [nameOf(m)]);
        expect(await reasons('nopod')).toEqual([]);
      });

      it('TestIsSandboxPodUnschedulable: past the grace only a Pod with PodScheduled=False reason Unschedulable holds its member — no condition, Unknown, True, another False reason, and a terminating Pod all mean stuck', async () => {
        const { p, clock } = await setUp('table', 6);
        await p.pass('table');
        const six = await p.cacheHas('table', 6);
        const [none, unknown, fine, held, gated, terminating] = six as [
          SandboxObj,
          SandboxObj,
          SandboxObj,
          SandboxObj,
          SandboxObj,
          SandboxObj,
        ];
        await script(p, none);
        await script(p, unknown, scheduled('Unknown'));
        await script(p, fine, scheduled('True'));
        await script(p, held, unschedulable());
        await script(p, gated, scheduled('False', 'SchedulingGated'));
        await script(p, terminating, unschedulable());
        const podName = nameOf(terminating);
        await world.client.patch(PODS, world.ns, podName, {
          type: 'merge',
          body: { metadata: { finalizers: [TEST_FINALIZER] } },
        });
        await world.client.delete(PODS, world.ns, podName);
        await settled(p, podName, (pod) => pod?.metadata.deletionTimestamp !== undefined);
        clock.set(Math.max(...six.map(created)) + DEFAULT_READINESS_GRACE_MS + 1_000);
        const stuck = [none, unknown, fine, gated, terminating].map(nameOf);
        await deletedByPasses(p, 'table', stuck);
        const left = live(await listMembers(world, 'table')).map(nameOf);
        expect(left).toContain(nameOf(held));
        const [warning] = await poolEvents('table');
        expect(warning?.message).toMatch(/^1\/6 sandboxes are unschedulable past the 5m0s/);
      });
    });
  });
}
