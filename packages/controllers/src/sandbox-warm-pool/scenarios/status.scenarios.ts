// The pool status writes (spec §13.2 step 6) beyond upstream's cases: the pace of count-only
// writes (status-pace.ts) and the memory of the last write (status-writer.ts), as single passes the
// test drives (testing/pool-passes.ts) on a hand-moved clock and on a cache the test freezes. No
// pool controller runs in this world, so every pool status write is one of the passes'.
import { FakeClock } from '@agent-sandbox/kube/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestTarget } from '../../testing/target.ts';
import { SANDBOX_WARM_POOLS, type PoolObject } from '../../extensions/resources.ts';
import { createPool, createTemplate, newPool, newTemplate } from '../../testing/extensions.ts';
import { eventually, openScenarioWorld, type ScenarioWorld } from '../../testing/harness.ts';
import { PoolPasses, countingClient, type PoolPassesOptions } from '../../testing/pool-passes.ts';
import { SANDBOXES } from '../../sandbox/child-writes.ts';
import { Labels, nameHash } from '@agent-sandbox/api';

const INTERVAL_MS = 10_000;

export function definePoolStatusScenarios(target: TestTarget): void {
  describe(`SandboxWarmPool status writes (${target})`, () => {
    let world: ScenarioWorld;
    const opened: PoolPasses[] = [];
    beforeAll(async () => {
      world = await openScenarioWorld(target);
    });
    afterAll(async () => {
      for (const p of opened) p.close();
      await world?.close();
    });
    const setUp = async (pool: string, replicas: number, options: PoolPassesOptions) => {
      await createTemplate(world, newTemplate(world.ns, `tpl-${pool}`));
      await createPool(world, newPool(world.ns, pool, `tpl-${pool}`, { replicas }));
      const p = await PoolPasses.open(world, options);
      opened.push(p);
      await eventually(() =>
        p.informers.getInformer<PoolObject>(SANDBOX_WARM_POOLS).cache.get(`${world.ns}/${pool}`),
      );
      return p;
    };
    const stored = (pool: string): Promise<PoolObject> =>
      world.client.get<PoolObject>(SANDBOX_WARM_POOLS, world.ns, pool);
    const cached = (p: PoolPasses, pool: string): PoolObject | undefined =>
      p.informers.getInformer<PoolObject>(SANDBOX_WARM_POOLS).cache.get(`${world.ns}/${pool}`);
    const cacheHas = (p: PoolPasses, pool: string, n: number): Promise<true> =>
      eventually(() =>
        p.informers
          .getInformer(SANDBOXES)
          .cache.list()
          .filter((s) => s.metadata.labels?.[Labels.WarmPoolSandbox] === nameHash(pool)).length ===
        n
          ? true
          : undefined,
      );

    describe.concurrent('pool status writes', () => {
      it('pool status: a count change within the interval waits for its end; a new generation is written at once; after the interval the pass writes the counts of that moment', async () => {
        const clock = new FakeClock(Date.now());
        const p = await setUp('paced', 2, { statusIntervalMs: INTERVAL_MS, clock });
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
