// The pool status writes (spec §13.2 step 6) beyond upstream's cases: the pace of count-only
// writes (status-pace.ts) and the memory of the last write (status-writer.ts), as single passes the
// test drives (testing/pool-passes.ts) on a hand-moved clock and on a cache the test freezes. No
// pool controller runs in this world, so every pool status write is one of the passes'. The paced
// pools' Pods are left to the test (no scheduler or kubelet takes them): their members are Ready
// only when the test says so.
import { PODS, type KubeClient } from '@agent-sandbox/kube';
import { FakeClock } from '@agent-sandbox/kube/testing';
import { describe, expect, it } from 'vitest';
import type { TestTarget } from '../../testing/target.ts';
import { SANDBOX_WARM_POOLS, type PoolObject } from '../../extensions/resources.ts';
import { createPool, createTemplate, newPool, newTemplate } from '../../testing/extensions.ts';
import {
  SCRIPTED_SCHEDULER,
  eventually,
  markPodRunning,
  runningPodStatus,
  testPodTemplate,
  type ScenarioWorld,
} from '../../testing/harness.ts';
import { PoolPasses, countingClient, type PoolPassSettings } from '../../testing/pool-passes.ts';
import { poolPassWorld } from './pool-pass-world.ts';
import { Annotations } from '@agent-sandbox/api';
import { isSandboxReady } from '../plan.ts';

const INTERVAL_MS = 10_000;

export function definePoolStatusScenarios(target: TestTarget): void {
  describe(`SandboxWarmPool status writes (${target})`, () => {
    let world: ScenarioWorld;
    const passes = poolPassWorld(target, (w) => (world = w));
    const scripted = {
      podTemplate: {
        ...testPodTemplate(),
        spec: { ...testPodTemplate().spec, schedulerName: SCRIPTED_SCHEDULER },
      },
    };
    const setUp = async (
      pool: string,
      replicas: number,
      options: { client?: KubeClient; settings?: PoolPassSettings },
    ) => {
      const paced = options.settings?.statusIntervalMs !== undefined;
      await createTemplate(world, newTemplate(world.ns, `tpl-${pool}`, paced ? scripted : {}));
      await createPool(world, newPool(world.ns, pool, `tpl-${pool}`, { replicas }));
      const p = await passes(options);
      await eventually(() =>
        p.informers.getInformer<PoolObject>(SANDBOX_WARM_POOLS).cache.get(`${world.ns}/${pool}`),
      );
      return p;
    };
    const stored = (pool: string): Promise<PoolObject> =>
      world.client.get<PoolObject>(SANDBOX_WARM_POOLS, world.ns, pool);
    const cached = (p: PoolPasses, pool: string): PoolObject | undefined =>
      p.informers.getInformer<PoolObject>(SANDBOX_WARM_POOLS).cache.get(`${world.ns}/${pool}`);
    /** PoolPasses.cacheHas, and `ready` of them Ready. */
    const cacheHas = (p: PoolPasses, pool: string, n: number, ready = 0): Promise<true> =>
      eventually(() => {
        const m = p.cachedMembers(pool);
        return m.length === n && m.filter(isSandboxReady).length === ready ? true : undefined;
      });

    describe.concurrent('pool status writes', () => {
      it('pool status: a count change within the interval waits for its end; a new generation is written at once; after the interval the pass writes the counts of that moment', async () => {
        const clock = new FakeClock(Date.now());
        const p = await setUp('paced', 2, { settings: { statusIntervalMs: INTERVAL_MS, clock } });
        await p.pass('paced'); // creates 2; the first status: selector and generation
        const first = await stored('paced');
        expect(first.status?.observedGeneration).toBe(first.metadata.generation);
        expect(first.status?.replicas).toBeUndefined();
        await cacheHas(p, 'paced', 2);
        const deferred = await p.pass('paced');
        expect(deferred?.requeueAfterMs).toBeGreaterThan(0);
        expect(deferred?.requeueAfterMs).toBeLessThanOrEqual(INTERVAL_MS);
        expect((await stored('paced')).status?.replicas).toBeUndefined();

        await world.client.patch(SANDBOX_WARM_POOLS, world.ns, 'paced', {
          type: 'merge',
          body: { spec: { replicas: 3 } },
        });
        await eventually(() => (cached(p, 'paced')?.spec.replicas === 3 ? true : undefined));
        await p.pass('paced'); // creates 1; the new generation goes out with the counts it saw
        const scaled = await stored('paced');
        expect(scaled.status?.observedGeneration).toBe(scaled.metadata.generation);
        expect(scaled.status?.replicas).toBe(2);

        await cacheHas(p, 'paced', 3);
        expect((await p.pass('paced'))?.requeueAfterMs).toBeLessThanOrEqual(INTERVAL_MS);
        expect((await stored('paced')).status?.replicas).toBe(2);
        await clock.advance(INTERVAL_MS);
        await p.pass('paced');
        expect((await stored('paced')).status?.replicas).toBe(3);
      });

      it('pool status: a change into or out of the settled pool (every desired member Ready) is written at once within the interval, and a pass at its end has nothing left to write', async () => {
        const clock = new FakeClock(Date.now());
        const p = await setUp('settled', 2, { settings: { statusIntervalMs: INTERVAL_MS, clock } });
        await p.pass('settled');
        await cacheHas(p, 'settled', 2);
        expect((await p.pass('settled'))?.requeueAfterMs).toBeLessThanOrEqual(INTERVAL_MS);
        expect((await stored('settled')).status?.replicas).toBeUndefined();
        const pods = p
          .cachedMembers('settled')
          .map((m) => m.metadata.annotations?.[Annotations.PodName] ?? m.metadata.name ?? '');
        for (const [i, pod] of pods.entries()) {
          await eventually(() => world.client.get(PODS, world.ns, pod));
          await markPodRunning(world.client, world.ns, pod, `10.0.0.${i + 2}`);
        }
        await cacheHas(p, 'settled', 2, 2);
        await p.pass('settled');
        expect((await stored('settled')).status).toMatchObject({ replicas: 2, readyReplicas: 2 });

        // One member stops being Ready: the pool is no longer settled, and says so at once.
        const notReady = runningPodStatus('10.0.0.2');
        notReady.conditions = notReady.conditions?.map((c) =>
          c.type === 'Ready' ? { ...c, status: 'False' } : c,
        );
        await world.client.patch(
          PODS,
          world.ns,
          pods[0] ?? '',
          { type: 'merge', body: { status: notReady } },
          { subresource: 'status' },
        );
        await cacheHas(p, 'settled', 2, 1);
        await p.pass('settled');
        const left = await stored('settled');
        expect(left.status).toMatchObject({ replicas: 2, readyReplicas: 1 });
        await clock.advance(INTERVAL_MS);
        await p.pass('settled');
        expect((await stored('settled')).metadata.resourceVersion).toBe(
          left.metadata.resourceVersion,
        );
      });

      it('pool status: passes from a pool copy older than their own status write do not send it again', async () => {
        const counting = countingClient(world);
        try {
          const p = await setUp('repeat', 1, { client: counting.client });
          await p.pass('repeat');
          await cacheHas(p, 'repeat', 1);
          p.informers.freeze(); // the pool copy will never show the next write
          const patches = (): number => counting.requests.get('PATCH 200') ?? 0;
          const before = patches();
          await p.pass('repeat');
          expect(patches()).toBe(before + 1);
          expect((await stored('repeat')).status?.replicas).toBe(1);
          for (let i = 0; i < 3; i++) await p.pass('repeat');
          expect(patches()).toBe(before + 1);
        } finally {
          await counting.client.close();
        }
      });
    });
  });
}
