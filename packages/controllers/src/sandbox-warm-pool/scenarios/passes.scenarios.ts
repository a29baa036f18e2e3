// Spec §21.4 sandboxwarmpool_overcreation_test.go and the slow-start / stale-adoption cases of
// sandboxwarmpool_controller_test.go, as single pool passes the test drives (testing/pool-passes.ts):
// upstream runs reconcilePool against a List that lags the store; here the lag is real — the
// pass reads informers of the target that the test stopped, while the API server moves on. No
// pool controller runs in this world (only the Sandbox controller), so every write to a pool's
// members is the test's or one of its passes'.
import { Labels, nameHash } from '@agent-sandbox/api';
import { ApiError } from '@agent-sandbox/kube';
import { describe, expect, it } from 'vitest';
import type { TestTarget } from '../../testing/target.ts';
import {
  SANDBOX_CLAIMS,
  SANDBOX_TEMPLATES,
  SANDBOX_WARM_POOLS,
  extensionsOwnerRef,
  type ClaimObject,
  type PoolObject,
  type SandboxObj,
  type TemplateObject,
} from '../../extensions/resources.ts';
import { SANDBOXES } from '../../sandbox/child-writes.ts';
import { adoptionPatch } from '../../sandbox-claim/adoption.ts';
import {
  createPool,
  createTemplate,
  listMembers,
  newClaim,
  newPool,
  newTemplate,
} from '../../testing/extensions.ts';
import { eventually, gone, scriptedSandbox, type ScenarioWorld } from '../../testing/harness.ts';
import { PoolPasses, unprivilegedClient } from '../../testing/pool-passes.ts';
import { poolPassWorld } from './pool-pass-world.ts';

const DRAIN = 'test.agent-sandbox.dev/drain';

export function definePoolPassScenarios(target: TestTarget): void {
  describe(`SandboxWarmPool single passes on a lagging cache (${target})`, () => {
    let world: ScenarioWorld;
    const passes = poolPassWorld(target, (w) => (world = w));
    /** Template and pool on the server, and a pool-passes instance that has seen both. */
    const setUp = async (
      pool: string,
      spec: Partial<PoolObject['spec']> = {},
    ): Promise<PoolPasses> => {
      await createTemplate(world, newTemplate(world.ns, `tpl-${pool}`));
      await createPool(world, newPool(world.ns, pool, `tpl-${pool}`, spec));
      const p = await passes();
      await eventually(() =>
        p.informers.getInformer<PoolObject>(SANDBOX_WARM_POOLS).cache.get(`${world.ns}/${pool}`),
      );
      return p;
    };
    const scale = (pool: string, replicas: number): Promise<unknown> =>
      world.client.patch(SANDBOX_WARM_POOLS, world.ns, pool, {
        type: 'merge',
        body: { spec: { replicas } },
      });
    const cachedReplicas = (p: PoolPasses, pool: string, replicas: number): Promise<true> =>
      eventually(() =>
        p.informers.getInformer<PoolObject>(SANDBOX_WARM_POOLS).cache.get(`${world.ns}/${pool}`)
          ?.spec.replicas === replicas
          ? true
          : undefined,
      );

    describe.concurrent('TestReconcilePool', () => {
      it('TestReconcilePool_NoOverCreationWithStaleCache / TestExpectations: five passes on a cache that never sees their creates make replicas members, no more; once caught up the expectations are met and passes create nothing', async () => {
        const stale = await setUp('stale', { replicas: 3 });
        stale.informers.freeze();
        for (let i = 0; i < 5; i++) await stale.pass('stale');
        expect(await listMembers(world, 'stale')).toHaveLength(3);
        // A caught-up cache: its initial list reaches the controller's own create handler.
        const caughtUp = await passes({ expectations: stale.expectations });
        await caughtUp.cacheHas('stale', 3);
        expect(stale.expectations.satisfied(stale.key('stale'), Date.now())).toBe(true);
        for (let i = 0; i < 3; i++) await caughtUp.pass('stale');
        expect(await listMembers(world, 'stale')).toHaveLength(3);
        const pool = await world.client.get<PoolObject>(SANDBOX_WARM_POOLS, world.ns, 'stale');
        expect(pool.status?.replicas).toBe(3);
      });

      it('TestReconcilePool_NoOverCreationConcurrent: eight passes at once on a stale cache create replicas members, no more', async () => {
        const p = await setUp('concurrent', { replicas: 3 });
        p.informers.freeze();
        await Promise.all(Array.from({ length: 8 }, () => p.pass('concurrent')));
        expect(await listMembers(world, 'concurrent')).toHaveLength(3);
      });

      it('TestReconcilePool_TerminatingCountsAgainstTarget: a terminating member still present holds its slot; its replacement comes once it is gone', async () => {
        const p = await setUp('terminating', { replicas: 2 });
        await p.pass('terminating');
        const [victim] = await p.cacheHas('terminating', 2);
        const name = victim?.metadata.name ?? '';
        await world.client.patch(SANDBOXES, world.ns, name, {
          type: 'merge',
          body: { metadata: { finalizers: [DRAIN] } },
        });
        await world.client.delete(SANDBOXES, world.ns, name);
        await eventually(() =>
          p
            .cachedMembers('terminating')
            .some((s) => s.metadata.name === name && s.metadata.deletionTimestamp !== undefined)
            ? true
            : undefined,
        );
        await p.pass('terminating');
        expect(await listMembers(world, 'terminating')).toHaveLength(2);
        const pool = await world.client.get<PoolObject>(
          SANDBOX_WARM_POOLS,
          world.ns,
          'terminating',
        );
        // Terminating members are not counted in the status.
        expect(pool.status?.replicas).toBe(1);
        await world.client.patch(SANDBOXES, world.ns, name, {
          type: 'merge',
          body: { metadata: { finalizers: null } },
        });
        await eventually(() =>
          p.cachedMembers('terminating').some((s) => s.metadata.name === name) ? undefined : true,
        );
        await p.pass('terminating');
        const after = await listMembers(world, 'terminating');
        expect(after).toHaveLength(2);
        expect(after.map((s) => s.metadata.name)).not.toContain(name);
      });

      it('TestReconcilePool_ExcessDeleteNotFoundLowersExpectation / TestExpectations: an excess member already gone from the store (NotFound) is observed at once — no error, no stalled pool, the real members kept', async () => {
        const p = await setUp('phantom', { replicas: 3 });
        await p.pass('phantom');
        const real = await p.cacheHas('phantom', 3);
        const pool = await world.client.get<PoolObject>(SANDBOX_WARM_POOLS, world.ns, 'phantom');
        // The excess victim order is not-Ready first, then newest: a member no scheduler runs,
        // created a second after the others (timestamps have whole seconds), is picked first.
        await new Promise((r) => setTimeout(r, 1_100));
        const phantom = scriptedSandbox(world.ns, 'phantom-gone');
        phantom.metadata.labels = {
          [Labels.WarmPoolSandbox]: nameHash('phantom'),
          [Labels.SandboxTemplateRefHash]: nameHash('tpl-phantom'),
          [Labels.LaunchType]: 'warm',
        };
        phantom.metadata.ownerReferences = [extensionsOwnerRef(pool, 'SandboxWarmPool')];
        const created = await world.client.create(SANDBOXES, phantom);
        await p.cacheHas('phantom', 4);
        p.informers.freeze();
        await world.client.delete(SANDBOXES, world.ns, 'phantom-gone');
        await eventually(() => gone(world.client, SANDBOXES, world.ns, 'phantom-gone'));
        await p.pass('phantom'); // resolves: a NotFound excess delete is no error
        expect(p.expectations.satisfied(p.key('phantom'), Date.now())).toBe(true);
        expect(
          p.expectations.isPendingDeletion(
            p.key('phantom'),
            created.metadata.uid ?? '',
            Date.now(),
          ),
        ).toBe(false);
        const kept = (await listMembers(world, 'phantom')).map((s) => s.metadata.uid).sort();
        expect(kept).toEqual(real.map((s) => s.metadata.uid).sort());
        // Not blocked: with the cache caught up and one more replica wanted, the next pass creates.
        const caughtUp = await passes({ expectations: p.expectations });
        await scale('phantom', 4);
        await cachedReplicas(caughtUp, 'phantom', 4);
        await caughtUp.pass('phantom');
        expect(await listMembers(world, 'phantom')).toHaveLength(4);
      });

      it('TestSlowStartBatch: early exit — the first failing batch stops the later ones, and the un-issued creates are lowered at once (the next pass is not gated)', async () => {
        await createTemplate(world, newTemplate(world.ns, 'tpl-denied'));
        await createPool(world, newPool(world.ns, 'denied', 'tpl-denied', { replicas: 7 }));
        // Creates are denied (403) by the target's own authorizer: batches would be 1, 2, 4.
        const { client, requests } = await unprivilegedClient(world, 'no-create');
        const p = await passes({ client });
        await eventually(() =>
          p.informers.getInformer<PoolObject>(SANDBOX_WARM_POOLS).cache.get(`${world.ns}/denied`),
        );
        const failure = await p.pass('denied').then(
          () => undefined,
          (err: unknown) => err,
        );
        expect(failure instanceof ApiError && failure.status.reason).toBe('Forbidden');
        expect(requests.get('POST 403')).toBe(1);
        expect(p.expectations.satisfied(p.key('denied'), Date.now())).toBe(true);
        await p.pass('denied').catch(() => undefined);
        expect(requests.get('POST 403')).toBe(2);
        expect([...requests.keys()].filter((k) => k.startsWith('POST'))).toEqual(['POST 403']);
        expect(await listMembers(world, 'denied')).toHaveLength(0);
        await client.close();
      });
      it('TestSlowStartBatch: cancellation — a pass whose manager is shutting down sends no create and lowers every expected one', async () => {
        const p = await setUp('cancelled', { replicas: 7 });
        const shutdown = new AbortController();
        shutdown.abort(new Error('manager stopping'));
        await expect(p.pass('cancelled', shutdown.signal)).rejects.toThrow();
        expect(p.expectations.satisfied(p.key('cancelled'), Date.now())).toBe(true);
        expect(await listMembers(world, 'cancelled')).toHaveLength(0);
        // The next pass (a new leader, say) is not gated by the cancelled one.
        await p.pass('cancelled');
        expect(await listMembers(world, 'cancelled')).toHaveLength(7);
      });
    });

    describe.concurrent('TestSandboxWarmPoolRollout', () => {
      /** Adopts `member` for a new claim with the claim controller's own handover patch. */
      const adopt = async (member: SandboxObj, template: string): Promise<ClaimObject> => {
        // No claim controller runs here: the claim is only the owner the handover names.
        const claim = await world.client.create(
          SANDBOX_CLAIMS,
          newClaim(world.ns, `holder-${member.metadata.name ?? ''}`, 'unused'),
        );
        const tpl = await world.client.get<TemplateObject>(SANDBOX_TEMPLATES, world.ns, template);
        // The claim side adopts what it reads now (the Sandbox controller writes its status).
        await eventually(async () => {
          const live = await world.client.get<SandboxObj>(
            SANDBOXES,
            world.ns,
            member.metadata.name ?? '',
          );
          return world.client.patch(SANDBOXES, world.ns, member.metadata.name ?? '', {
            type: 'merge',
            body: adoptionPatch(live, claim, tpl),
          });
        });
        return claim;
      };
      const ownedBy = async (name: string, claim: ClaimObject): Promise<SandboxObj> => {
        const s = await world.client.get<SandboxObj>(SANDBOXES, world.ns, name);
        expect(s.metadata.deletionTimestamp).toBeUndefined();
        expect(s.metadata.ownerReferences).toEqual([
          expect.objectContaining({ kind: 'SandboxClaim', uid: claim.metadata.uid }),
        ]);
        return s;
      };

      it('TestSandboxWarmPoolRollout: Recreate with a stale adoption — a member a claim adopted after the cache last saw it is not deleted as stale', async () => {
        const p = await setUp('roll', { replicas: 1, updateStrategy: { type: 'Recreate' } });
        await p.pass('roll');
        const [member] = (await p.cacheHas('roll', 1)) as [SandboxObj];
        await world.client.patch(SANDBOX_TEMPLATES, world.ns, 'tpl-roll', {
          type: 'json',
          ops: [
            {
              op: 'replace',
              path: '/spec/podTemplate/spec/containers/0/image',
              value: 'busybox:2',
            },
          ],
        });
        await eventually(() =>
          p.informers
            .getInformer<TemplateObject>(SANDBOX_TEMPLATES)
            .cache.get(`${world.ns}/tpl-roll`)?.spec.podTemplate.spec.containers[0]?.image ===
          'busybox:2'
            ? true
            : undefined,
        );
        // The cache now holds the new template and the member as the pool's, unclaimed: stale.
        p.informers.freeze();
        const claim = await adopt(member, 'tpl-roll');
        await p.pass('roll');
        const kept = await ownedBy(member.metadata.name ?? '', claim);
        expect(kept.metadata.uid).toBe(member.metadata.uid);
        // The refused delete left no expectation behind.
        expect(p.expectations.satisfied(p.key('roll'), Date.now())).toBe(true);
      });

      it('TestSandboxWarmPoolRollout: OnReplenish with a stale adoption — scaling to zero on a cache that missed the adoption keeps the claimed member', async () => {
        const p = await setUp('keep', { replicas: 1, updateStrategy: { type: 'OnReplenish' } });
        await p.pass('keep');
        const [member] = (await p.cacheHas('keep', 1)) as [SandboxObj];
        await scale('keep', 0);
        await cachedReplicas(p, 'keep', 0);
        p.informers.freeze();
        const claim = await adopt(member, 'tpl-keep');
        await p.pass('keep');
        await ownedBy(member.metadata.name ?? '', claim);
        expect(p.expectations.satisfied(p.key('keep'), Date.now())).toBe(true);
      });
    });
  });
}
