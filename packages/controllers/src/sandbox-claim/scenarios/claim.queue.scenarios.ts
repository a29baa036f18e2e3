// Spec §21.3 candidate choice from the warm queue, end to end: TestSandboxClaimAdoptionStrategy
// (FIFO, Ready before an older unready member) and the TestSandboxClaimSandboxAdoption cases that
// need a member in a state a running pool controller only passes through (stale under Recreate,
// moved to another pool, orphaned, deleting). No pool controller runs in this world: the test
// plays the pool, creating members exactly as it would (newMember) on the scripted scheduler and
// reporting their Pods itself, so each case's queue holds what the test put there. The claim
// controller's warm queue is the test's too, so the TestWarmPoolEventHandler / TestSandboxEventHandler
// cases read it after the watch events that feed it.
import { Labels } from '@agent-sandbox/api';
import { PODS } from '@agent-sandbox/kube';
import type { Pod } from '@agent-sandbox/kube-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestTarget } from '../../testing/target.ts';
import {
  SANDBOX_CLAIMS,
  SANDBOX_WARM_POOLS,
  extensionsOwnerRef,
  type ClaimObject,
  type PoolObject,
  type SandboxObj,
  type TemplateObject,
} from '../../extensions/resources.ts';
import { SANDBOXES } from '../../sandbox/child-writes.ts';
import { WarmSandboxQueue } from '../../warm-queue/warm-queue.ts';
import { newMember } from '../../sandbox-warm-pool/member.ts';
import {
  createClaim,
  createPool,
  createTemplate,
  isReady,
  newClaim,
  newPool,
  newTemplate,
  where,
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

const HOLD = 'test.agent-sandbox.dev/hold-sandbox';

/** Running with an IP but not Ready: the fallback candidate. */
function networkedNotReady(ip: string): NonNullable<Pod['status']> {
  const status = runningPodStatus(ip);
  return {
    ...status,
    conditions: (status.conditions ?? []).map((c) =>
      c.type === 'Ready' ? { ...c, status: 'False' } : c,
    ),
  };
}

export function defineClaimQueueScenarios(target: TestTarget): void {
  describe(`SandboxClaim candidates from the warm queue (${target})`, () => {
    let world: ScenarioWorld;
    let template: TemplateObject;
    let ip = 0;
    const queue = new WarmSandboxQueue();
    beforeAll(async () => {
      world = await openScenarioWorld(target, {
        extensions: { only: ['sandboxclaim', 'sandboxtemplate'], claimQueue: queue },
      });
      const base = testPodTemplate();
      template = await createTemplate(
        world,
        newTemplate(world.ns, 'tpl', {
          podTemplate: { ...base, spec: { ...base.spec, schedulerName: SCRIPTED_SCHEDULER } },
        }),
      );
    });
    afterAll(async () => {
      if (world === undefined) return;
      const all = await world.client.list<SandboxObj>(SANDBOXES, world.ns).catch(() => undefined);
      for (const s of all?.items ?? []) {
        if (!s.metadata.finalizers?.includes(HOLD)) continue;
        await world.client
          .patch(SANDBOXES, world.ns, s.metadata.name ?? '', {
            type: 'merge',
            body: { metadata: { finalizers: null } },
          })
          .catch(() => undefined);
      }
      await world.close();
    });

    const cached = (name: string, check: (s: SandboxObj) => boolean): Promise<SandboxObj> => {
      const cache = world.controller.manager.getInformer<SandboxObj>(SANDBOXES).cache;
      return eventually(() => {
        const s = cache.get(`${world.ns}/${name}`);
        return s !== undefined && check(s) ? s : undefined;
      }, 60_000);
    };

    /** A member as the pool makes it, its Pod reported by the test; waits until the claim controller sees it networked. */
    const member = async (
      pool: PoolObject,
      options: { ready?: boolean; edit?: (m: SandboxObj) => void } = {},
    ): Promise<string> => {
      const m = newMember(pool, template, { enableEviction: true });
      options.edit?.(m);
      const created = await world.client.create(SANDBOXES, m);
      const name = created.metadata.name ?? '';
      const addr = `10.244.210.${++ip}`;
      await eventually(() => world.client.get(PODS, world.ns, name));
      await setPodStatus(
        world.client,
        world.ns,
        name,
        options.ready === false ? networkedNotReady(addr) : runningPodStatus(addr),
      );
      await cached(
        name,
        (s) => (s.status?.podIPs?.length ?? 0) > 0 && isReady(s) === (options.ready !== false),
      );
      return name;
    };

    const pool = (name: string, spec: Partial<PoolObject['spec']> = {}): Promise<PoolObject> =>
      createPool(world, newPool(world.ns, name, 'tpl', { replicas: 0, ...spec }));

    /** Creates the claim and waits until it records the Sandbox it took (warm or cold). */
    const claimOf = async (name: string, poolName: string): Promise<string> => {
      await createClaim(world, newClaim(world.ns, name, poolName));
      const c = await where<ClaimObject>(
        world,
        SANDBOX_CLAIMS,
        name,
        (o) => o.status?.sandbox?.name !== undefined,
        60_000,
      );
      return c.status?.sandbox?.name ?? '';
    };

    const poolOwned = async (name: string, poolName: string): Promise<void> => {
      const s = await world.client.get<SandboxObj>(SANDBOXES, world.ns, name);
      expect(s.metadata.ownerReferences?.find((r) => r.controller)?.name).toBe(poolName);
    };

    describe.concurrent('TestSandboxClaimAdoptionStrategy', () => {
      it('TestSandboxClaimAdoptionStrategy: FIFO — claims take the Ready members oldest first', async () => {
        const p = await pool('fifo');
        const order = [await member(p), await member(p), await member(p)];
        const taken: string[] = [];
        for (const [i] of order.entries()) taken.push(await claimOf(`fifo-${i}`, 'fifo'));
        expect(taken).toEqual(order);
      });

      it('TestSandboxClaimAdoptionStrategy / TestSandboxClaimSandboxAdoption: a Ready member beats an older unready one; the next claim falls back to the networked unready one', async () => {
        const p = await pool('ready-first');
        const unready = await member(p, { ready: false });
        const ready = await member(p);
        expect(await claimOf('rf-1', 'ready-first')).toBe(ready);
        expect(await claimOf('rf-2', 'ready-first')).toBe(unready);
      });
    });

    describe.concurrent('TestSandboxClaimSandboxAdoption', () => {
      const stale = (m: SandboxObj): void => {
        m.metadata.labels = { ...m.metadata.labels, [Labels.SandboxTemplateHash]: 'stale0' };
        m.spec.podTemplate.spec.containers[0]!.image = 'busybox:stale';
      };

      it('TestSandboxClaimSandboxAdoption: Recreate skips a stale member — the claim goes cold and the member stays the pool’s', async () => {
        const p = await pool('recreate-stale', { updateStrategy: { type: 'Recreate' } });
        const old = await member(p, { edit: stale });
        expect(await claimOf('rs', 'recreate-stale')).toBe('rs');
        await poolOwned(old, 'recreate-stale');
      });

      it('TestSandboxClaimSandboxAdoption: Recreate adopts a fresh member and a hash-less one whose blueprint is identical', async () => {
        const p = await pool('recreate-fresh', { updateStrategy: { type: 'Recreate' } });
        const fresh = await member(p);
        const hashless = await member(p, {
          edit: (m) => {
            delete m.metadata.labels?.[Labels.SandboxTemplateHash];
          },
        });
        expect(await claimOf('rf-a', 'recreate-fresh')).toBe(fresh);
        expect(await claimOf('rf-b', 'recreate-fresh')).toBe(hashless);
      });

      it('TestSandboxClaimSandboxAdoption: OnReplenish and an unset strategy adopt a stale member', async () => {
        const on = await pool('replenish-stale', { updateStrategy: { type: 'OnReplenish' } });
        const unset = await pool('unset-stale');
        const a = await member(on, { edit: stale });
        const b = await member(unset, { edit: stale });
        expect(await claimOf('os', 'replenish-stale')).toBe(a);
        expect(await claimOf('us', 'unset-stale')).toBe(b);
      });

      it('TestSandboxClaimSandboxAdoption / TestIsAdoptable_RejectsUnowned / TestSandboxClaimPreventsAdoptionFromWrongWarmPool: queued members that are foreign-controlled, deleting, orphaned or moved to another pool are skipped; the claim goes cold', async () => {
        const p = await pool('ineligible');
        const other = await pool('ineligible-other');
        const foreign = await member(p, {
          edit: (m) => {
            const ref = extensionsOwnerRef(p, 'SandboxWarmPool');
            m.metadata.ownerReferences = [
              { ...ref, controller: false },
              { ...extensionsOwnerRef(template, 'SandboxTemplate'), controller: true },
            ];
          },
        });
        const deleting = await member(p, {
          edit: (m) => {
            m.metadata.finalizers = [HOLD];
          },
        });
        const orphaned = await member(p);
        const moved = await member(p);
        await world.client.delete(SANDBOXES, world.ns, deleting);
        await cached(deleting, (s) => s.metadata.deletionTimestamp !== undefined);
        for (const [name, refs] of [
          [orphaned, null],
          [moved, [extensionsOwnerRef(other, 'SandboxWarmPool')]],
        ] as const) {
          await world.client.patch(SANDBOXES, world.ns, name, {
            type: 'merge',
            body: { metadata: { ownerReferences: refs } },
          });
          await cached(
            name,
            (s) => (s.metadata.ownerReferences?.[0]?.name ?? '') !== p.metadata.name,
          );
        }
        expect(await claimOf('inel', 'ineligible')).toBe('inel');
        for (const name of [foreign, deleting, orphaned]) {
          const s = await world.client.get<SandboxObj>(SANDBOXES, world.ns, name);
          expect((s.metadata.ownerReferences ?? []).some((r) => r.kind === 'SandboxClaim')).toBe(
            false,
          );
        }
        // The moved member is its new pool's to give.
        expect(await claimOf('inel-other', 'ineligible-other')).toBe(moved);
      });
    });

    describe.concurrent('TestWarmPoolEventHandler / TestSandboxEventHandler', () => {
      const queued = (pool: string): string[] =>
        queue.keys(WarmSandboxQueue.queueName(world.ns, pool)).map((k) => k.name);
      const queueIs = (pool: string, names: string[]): Promise<true> =>
        eventually(() => {
          expect(queued(pool)).toEqual(names);
          return true;
        }, 60_000);

      it('TestWarmPoolEventHandler_Delete_RemovesEntireQueue: deleting a pool drops its whole warm queue, though its members live on (orphaned by the delete); other pools keep theirs', async () => {
        const doomed = await pool('doomed');
        const kept = await pool('doomed-not');
        const members = [await member(doomed), await member(doomed)];
        const other = await member(kept);
        await queueIs('doomed', members);
        await world.client.delete(SANDBOX_WARM_POOLS, world.ns, 'doomed', {
          propagationPolicy: 'Orphan',
        });
        await queueIs('doomed', []);
        for (const name of members) {
          const s = await world.client.get<SandboxObj>(SANDBOXES, world.ns, name);
          expect(s.metadata.deletionTimestamp).toBeUndefined();
        }
        expect(queued('doomed-not')).toEqual([other]);
      });

      it('TestSandboxEventHandler_Delete_RemovesGhostPods: a deleted member leaves the warm queue at once; the others keep their places', async () => {
        const p = await pool('ghost');
        const [a, b, c] = [await member(p), await member(p), await member(p)];
        await queueIs('ghost', [a, b, c]);
        await world.client.delete(SANDBOXES, world.ns, b);
        await queueIs('ghost', [a, c]);
      });

      it('TestSimpleSandboxQueue: one key per member in arrival order however often the member changes; a claim pops the head', async () => {
        const p = await pool('dedup');
        const [a, b] = [await member(p), await member(p)];
        for (let i = 0; i < 3; i++) {
          const touched = await world.client.patch<SandboxObj>(SANDBOXES, world.ns, a, {
            type: 'merge',
            body: { metadata: { annotations: { 'test.agent-sandbox.dev/touch': String(i) } } },
          });
          await cached(a, (s) => s.metadata.resourceVersion === touched.metadata.resourceVersion);
        }
        expect(queued('dedup')).toEqual([a, b]);
        expect(await claimOf('dedup-1', 'dedup')).toBe(a);
        await queueIs('dedup', [b]);
      });
    });
  });
}
