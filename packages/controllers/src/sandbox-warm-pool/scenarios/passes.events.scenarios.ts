// Spec §21.4 sandboxwarmpool_overcreation_test.go TestWarmPoolSandboxEventHandler_ObservesOwnedEvents
// end to end: the pool controller's own Sandbox event handlers (observeMemberEvents, on real
// informers of the target, testing/pool-passes.ts) lower a pool's expectations for the adds and
// deletes of the Sandboxes it controls, and for nothing else — an orphan or a foreign-controlled
// Sandbox carrying the pool's label never satisfies them. No pool controller runs in this world,
// so the expectations move only on the events the test causes.
import { Labels, nameHash } from '@agent-sandbox/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestTarget } from '../../testing/target.ts';
import { extensionsOwnerRef, type SandboxObj } from '../../extensions/resources.ts';
import { SANDBOXES } from '../../sandbox/child-writes.ts';
import { createPool, createTemplate, newPool, newTemplate } from '../../testing/extensions.ts';
import {
  eventually,
  openScenarioWorld,
  scriptedSandbox,
  type ScenarioWorld,
} from '../../testing/harness.ts';
import { PoolPasses } from '../../testing/pool-passes.ts';

export function definePoolEventScenarios(target: TestTarget): void {
  describe(`SandboxWarmPool member event handlers (${target})`, () => {
    let world: ScenarioWorld;
    let passes: PoolPasses | undefined;
    beforeAll(async () => {
      world = await openScenarioWorld(target);
    });
    afterAll(async () => {
      passes?.close();
      await world?.close();
    });

    it('TestWarmPoolSandboxEventHandler_ObservesOwnedEvents: adds and deletes of pool-controlled Sandboxes lower the expectations; orphans and foreign-controlled ones do not', async () => {
      const template = await createTemplate(world, newTemplate(world.ns, 'tpl-ev'));
      const pool = await createPool(world, newPool(world.ns, 'ev', 'tpl-ev', { replicas: 0 }));
      const p = await PoolPasses.open(world);
      passes = p;
      const key = p.key('ev');
      const cache = p.informers.getInformer<SandboxObj>(SANDBOXES).cache;
      const inCache = (name: string, present: boolean): Promise<true> =>
        eventually(() =>
          (cache.get(`${world.ns}/${name}`) !== undefined) === present ? true : undefined,
        );
      const satisfied = (): boolean => p.expectations.satisfied(key, Date.now());
      const lookAlike = (
        name: string,
        controller?: SandboxObj['metadata']['ownerReferences'],
      ): SandboxObj => {
        const s = scriptedSandbox(world.ns, name);
        s.metadata.labels = { [Labels.WarmPoolSandbox]: nameHash('ev') };
        if (controller !== undefined) s.metadata.ownerReferences = controller;
        return s;
      };

      expect(p.expectations.tryExpectCreations(key, 1, Date.now())).toBe(true);
      await world.client.create(SANDBOXES, lookAlike('ev-orphan'));
      await world.client.create(
        SANDBOXES,
        lookAlike('ev-foreign', [extensionsOwnerRef(template, 'SandboxTemplate')]),
      );
      await inCache('ev-orphan', true);
      await inCache('ev-foreign', true);
      expect(satisfied()).toBe(false);
      const owned = await world.client.create(
        SANDBOXES,
        lookAlike('ev-owned', [extensionsOwnerRef(pool, 'SandboxWarmPool')]),
      );
      await eventually(() => (satisfied() ? true : undefined));

      p.expectations.expectDeletion(key, owned.metadata.uid ?? '', Date.now());
      expect(satisfied()).toBe(false);
      await world.client.delete(SANDBOXES, world.ns, 'ev-orphan');
      await world.client.delete(SANDBOXES, world.ns, 'ev-foreign');
      await inCache('ev-orphan', false);
      await inCache('ev-foreign', false);
      expect(satisfied()).toBe(false);
      await world.client.delete(SANDBOXES, world.ns, 'ev-owned');
      await eventually(() => (satisfied() ? true : undefined), 60_000);
      expect(p.expectations.isPendingDeletion(key, owned.metadata.uid ?? '', Date.now())).toBe(
        false,
      );
    });
  });
}
