// Spec §21.3 TestSandboxClaimCleanupPolicy and the TTL cases beside it end to end: the three
// shutdown policies on a shutdownTime ahead, Finished mirrored and the TTL requeue, Retain on an
// adopted warm Sandbox, Retain when the claim's Sandbox is no longer its own (deletion skipped,
// binding cleared), an already-expired shutdownTime (the expired status persisted before any
// cleanup, no Sandbox ever created), and ttlSecondsAfterFinished under DeleteForeground.
import { EVENTS, PODS } from '@agent-sandbox/kube';
import type { Event, KubeObject } from '@agent-sandbox/kube-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestTarget } from '../../testing/target.ts';
import { SANDBOX_CLAIMS, type ClaimObject, type SandboxObj } from '../../extensions/resources.ts';
import { SANDBOXES } from '../../sandbox/child-writes.ts';
import {
  createClaim,
  createPool,
  createTemplate,
  listMembers,
  newClaim,
  newPool,
  newTemplate,
  poolSettled,
  where,
  readyCondition,
} from '../../testing/extensions.ts';
import {
  SCRIPTED_SCHEDULER,
  eventually,
  gone,
  openScenarioWorld,
  setPodStatus,
  type ScenarioWorld,
} from '../../testing/harness.ts';

/** Whole seconds (the API's RFC 3339 without fractions), `ms` from now. */
const inMs = (ms: number): string =>
  new Date(Date.now() + ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

export function defineClaimCleanupScenarios(target: TestTarget): void {
  describe(`SandboxClaim cleanup policies and TTL (${target})`, () => {
    let world: ScenarioWorld;
    beforeAll(async () => {
      world = await openScenarioWorld(target, { extensions: {} });
      await createTemplate(world, newTemplate(world.ns, 'tpl'));
      await createPool(world, newPool(world.ns, 'cold', 'tpl', { replicas: 0 }));
      const scripted = newTemplate(world.ns, 'tpl-scripted');
      scripted.spec.podTemplate.spec.schedulerName = SCRIPTED_SCHEDULER;
      await createTemplate(world, scripted);
      await createPool(world, newPool(world.ns, 'scripted', 'tpl-scripted', { replicas: 0 }));
    });
    afterAll(async () => {
      await world?.close();
    });
    const claimWhere = (name: string, check: (c: ClaimObject) => boolean): Promise<ClaimObject> =>
      where<ClaimObject>(world, SANDBOX_CLAIMS, name, check);
    const readyReason = (name: string, reason: string): Promise<ClaimObject> =>
      claimWhere(name, (c) => readyCondition(c)?.reason === reason);

    describe.concurrent('TestSandboxClaimCleanupPolicy', () => {
      const past = (): string =>
        new Date(Date.now() - 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
      const claimEvents = async (name: string): Promise<string[]> => {
        const events = await world.client.list<Event & KubeObject>(EVENTS, world.ns);
        return events.items
          .filter((e) => e.involvedObject.name === name)
          .map((e) => `${e.reason ?? ''}: ${e.message ?? ''}`)
          .filter((m, i, all) => all.indexOf(m) === i) // a pass racing the cache may repeat one
          .sort();
      };

      it('TestSandboxClaimTTLCleanupRequiresPersistedExpiredStatus: an already-expired shutdownTime under Delete — ClaimExpired is persisted first, then the claim is deleted; no Sandbox is ever created', async () => {
        await createClaim(
          world,
          newClaim(world.ns, 'expired-delete', 'cold', {
            lifecycle: { shutdownTime: past(), shutdownPolicy: 'Delete' },
          }),
        );
        await eventually(() => gone(world.client, SANDBOX_CLAIMS, world.ns, 'expired-delete'));
        // The Deleting event comes from a pass that read ClaimExpired back from the claim.
        const events = await eventually(async () => {
          const e = await claimEvents('expired-delete');
          return e.length >= 2 ? e : undefined;
        });
        expect(events).toEqual([
          'ClaimExpired: Claim expired',
          'ClaimExpired: Deleting Claim (ShutdownPolicy=Delete)',
        ]);
        expect(await gone(world.client, SANDBOXES, world.ns, 'expired-delete')).toBe(true);
      });

      it('TestSandboxClaimTTLCleanupRequiresPersistedExpiredStatus: an already-expired shutdownTime under Retain — ClaimExpired, the claim kept, no Sandbox created', async () => {
        await createClaim(
          world,
          newClaim(world.ns, 'expired-retain', 'cold', {
            lifecycle: { shutdownTime: past(), shutdownPolicy: 'Retain' },
          }),
        );
        const c = await readyReason('expired-retain', 'ClaimExpired');
        expect(readyCondition(c)).toMatchObject({
          status: 'False',
          message: 'Claim expired. Sandbox cleanup initiated.',
        });
        expect(c.status?.sandbox).toBeUndefined();
        await eventually(async () =>
          (await claimEvents('expired-retain')).includes('ClaimExpired: Claim expired')
            ? true
            : undefined,
        );
        expect(await gone(world.client, SANDBOXES, world.ns, 'expired-retain')).toBe(true);
        expect(await claimEvents('expired-retain')).toEqual(['ClaimExpired: Claim expired']);
      });

      it('TestSandboxClaimCleanupPolicy: Retain on an adopted warm Sandbox deletes it and keeps the claim', async () => {
        await createPool(world, newPool(world.ns, 'warm-retain', 'tpl', { replicas: 1 }));
        await poolSettled(world, 'warm-retain', 1);
        const [member] = await listMembers(world, 'warm-retain');
        const name = member?.metadata.name ?? '';
        await createClaim(
          world,
          newClaim(world.ns, 'retain-warm', 'warm-retain', {
            lifecycle: { shutdownTime: inMs(5_000), shutdownPolicy: 'Retain' },
          }),
        );
        const bound = await claimWhere('retain-warm', (c) => c.status?.sandbox?.name === name);
        expect(readyCondition(bound)?.status).toBe('True');
        const expired = await readyReason('retain-warm', 'ClaimExpired');
        expect(readyCondition(expired)?.message).toBe('Claim expired. Sandbox cleanup initiated.');
        await eventually(() => gone(world.client, SANDBOXES, world.ns, name));
        await claimWhere('retain-warm', (c) => c.status?.sandbox === undefined);
      });

      it('TestSandboxClaimCleanupPolicy: Retain when the Sandbox is no longer the claim’s skips the deletion and clears the binding', async () => {
        await createClaim(
          world,
          newClaim(world.ns, 'retain-foreign', 'cold', {
            lifecycle: { shutdownTime: inMs(8_000), shutdownPolicy: 'Retain' },
          }),
        );
        await claimWhere('retain-foreign', (c) => c.status?.sandbox?.name === 'retain-foreign');
        // Someone takes the Sandbox over before the claim expires.
        await world.client.patch(SANDBOXES, world.ns, 'retain-foreign', {
          type: 'merge',
          body: { metadata: { ownerReferences: null } },
        });
        const skipped = await claimWhere(
          'retain-foreign',
          (c) =>
            readyCondition(c)?.reason === 'ClaimExpired' &&
            (readyCondition(c)?.message ?? '').includes('skipped'),
        );
        expect(readyCondition(skipped)?.message).toBe(
          'Claim expired. sandbox not owned by this claim: sandbox "retain-foreign" is not owned by claim "retain-foreign"; deletion skipped.',
        );
        expect(skipped.status?.sandbox).toBeUndefined();
        const kept = await world.client.get<SandboxObj>(SANDBOXES, world.ns, 'retain-foreign');
        expect(kept.metadata.deletionTimestamp).toBeUndefined();
      });

      it('TestSandboxClaimTTLAfterFinishedCleanupPolicy: DeleteForeground after the TTL deletes the claim once its Sandbox is gone', async () => {
        await createClaim(
          world,
          newClaim(world.ns, 'ttl-fg', 'scripted', {
            lifecycle: { ttlSecondsAfterFinished: 1, shutdownPolicy: 'DeleteForeground' },
          }),
        );
        await eventually(() => world.client.get(PODS, world.ns, 'ttl-fg'));
        await setPodStatus(world.client, world.ns, 'ttl-fg', { phase: 'Succeeded' });
        await claimWhere(
          'ttl-fg',
          (c) =>
            c.status?.conditions?.some((x) => x.type === 'Finished' && x.status === 'True') ??
            false,
        );
        await eventually(() => gone(world.client, SANDBOX_CLAIMS, world.ns, 'ttl-fg'), 30_000);
        expect(await gone(world.client, SANDBOXES, world.ns, 'ttl-fg')).toBe(true);
        const events = await world.client.list<Event & KubeObject>(EVENTS, world.ns);
        expect(
          events.items
            .filter((e) => e.involvedObject.name === 'ttl-fg' && e.reason === 'ClaimExpired')
            .map((e) => e.message)
            .filter((m, i, all) => all.indexOf(m) === i)
            .sort(),
        ).toEqual(['Claim expired', 'Deleting Claim (ShutdownPolicy=DeleteForeground)']);
      });
    });

    describe.concurrent('TestSandboxClaimCleanupPolicy (shutdownTime ahead)', () => {
      const soon = (): string => inMs(1_500);

      it('TestSandboxClaimCleanupPolicy: Retain deletes the Sandbox and keeps the claim (ClaimExpired)', async () => {
        await createClaim(
          world,
          newClaim(world.ns, 'retain', 'cold', {
            lifecycle: { shutdownTime: soon(), shutdownPolicy: 'Retain' },
          }),
        );
        await where<SandboxObj>(world, SANDBOXES, 'retain', () => true);
        const c = await readyReason('retain', 'ClaimExpired');
        expect(readyCondition(c)?.message).toBe('Claim expired. Sandbox cleanup initiated.');
        await eventually(() => gone(world.client, SANDBOXES, world.ns, 'retain'));
        // The pass after the Sandbox's delete event clears the binding.
        const after = await claimWhere('retain', (x) => x.status?.sandbox === undefined);
        expect(readyCondition(after)?.reason).toBe('ClaimExpired');
      });

      it('TestSandboxClaimCleanupPolicy: Delete deletes the claim (and its Sandbox through GC)', async () => {
        await createClaim(
          world,
          newClaim(world.ns, 'delete', 'cold', {
            lifecycle: { shutdownTime: soon(), shutdownPolicy: 'Delete' },
          }),
        );
        await where<SandboxObj>(world, SANDBOXES, 'delete', () => true);
        await eventually(() => gone(world.client, SANDBOX_CLAIMS, world.ns, 'delete'));
        await eventually(() => gone(world.client, SANDBOXES, world.ns, 'delete'), 30_000);
      });

      it('TestSandboxClaimCleanupPolicy: DeleteForeground keeps the claim until its Sandbox is gone', async () => {
        await createClaim(
          world,
          newClaim(world.ns, 'foreground', 'cold', {
            lifecycle: { shutdownTime: soon(), shutdownPolicy: 'DeleteForeground' },
          }),
        );
        await where<SandboxObj>(world, SANDBOXES, 'foreground', () => true);
        await eventually(() => gone(world.client, SANDBOX_CLAIMS, world.ns, 'foreground'), 30_000);
        expect(await gone(world.client, SANDBOXES, world.ns, 'foreground')).toBe(true);
      });

      it('TestSandboxClaimMirrorsFinishedConditionAndSchedulesTTL / TestSandboxClaimTTLAfterFinishedCleanupPolicy: Finished mirrored; the TTL requeue (no other event comes) expires it; Retain keeps Finished', async () => {
        await createClaim(
          world,
          newClaim(world.ns, 'ttl', 'scripted', {
            lifecycle: { ttlSecondsAfterFinished: 1, shutdownPolicy: 'Retain' },
          }),
        );
        await eventually(() => world.client.get(PODS, world.ns, 'ttl'));
        await setPodStatus(world.client, world.ns, 'ttl', { phase: 'Succeeded' });
        const finished = await claimWhere(
          'ttl',
          (c) =>
            c.status?.conditions?.some((x) => x.type === 'Finished' && x.status === 'True') ??
            false,
        );
        expect(finished.status?.conditions?.find((x) => x.type === 'Finished')?.reason).toBe(
          'PodSucceeded',
        );
        const expired = await readyReason('ttl', 'ClaimExpired');
        expect(expired.status?.conditions?.map((x) => x.type)).toEqual(['Finished', 'Ready']);
        await eventually(() => gone(world.client, SANDBOXES, world.ns, 'ttl'));
        const kept = await world.client.get<ClaimObject>(SANDBOX_CLAIMS, world.ns, 'ttl');
        expect(kept.status?.conditions?.find((x) => x.type === 'Finished')?.status).toBe('True');
      });
    });

    // The expiry instant of spec §16 (ExpireAt): shutdownTime, finishedAt + ttl, the earlier wins.
    // Under Retain the claim stays; its 'Claim expired' event says when it expired (whole seconds,
    // as the Finished time is: lower bounds only).
    describe.concurrent('internal/lifecycle/expiry_test', () => {
      const finishedOf = (c: ClaimObject) =>
        c.status?.conditions?.find((x) => x.type === 'Finished' && x.status === 'True');
      /** A cold claim on the scripted pool whose Pod then succeeds; returns when it finished. */
      const finish = async (
        name: string,
        lifecycle: NonNullable<ClaimObject['spec']['lifecycle']> = {},
      ): Promise<number> => {
        await createClaim(
          world,
          newClaim(world.ns, name, 'scripted', {
            lifecycle: { shutdownPolicy: 'Retain', ...lifecycle },
          }),
        );
        await eventually(() => world.client.get(PODS, world.ns, name));
        await setPodStatus(world.client, world.ns, name, { phase: 'Succeeded' });
        const c = await claimWhere(name, (x) => finishedOf(x) !== undefined);
        return Date.parse(finishedOf(c)?.lastTransitionTime ?? '');
      };
      const expiredEvents = async (name: string): Promise<number[]> =>
        (await world.client.list<Event & KubeObject>(EVENTS, world.ns)).items
          .filter(
            (e) =>
              e.involvedObject.name === name &&
              e.reason === 'ClaimExpired' &&
              e.message === 'Claim expired',
          )
          .map((e) => Date.parse(e.firstTimestamp ?? ''));
      const expiredAt = async (name: string): Promise<number> => {
        await readyReason(name, 'ClaimExpired');
        const times = await eventually(async () => {
          const t = await expiredEvents(name);
          return t.length > 0 ? t : undefined;
        });
        return Math.min(...times);
      };

      it('internal/lifecycle/expiry_test: ttl only — a finished claim expires ttlSecondsAfterFinished after it finished', async () => {
        const finishedAt = await finish('exp-ttl', { ttlSecondsAfterFinished: 2 });
        expect(await expiredAt('exp-ttl')).toBeGreaterThanOrEqual(finishedAt + 2_000);
      });

      it('internal/lifecycle/expiry_test: ttl 0 — a finished claim expires at once; no shutdownTime and no ttl — it never does', async () => {
        await finish('exp-none');
        const finishedAt = await finish('exp-zero', { ttlSecondsAfterFinished: 0 });
        expect(await expiredAt('exp-zero')).toBeGreaterThanOrEqual(finishedAt);
        // exp-none finished first, and the pass that expired exp-zero came after it.
        const none = await world.client.get<ClaimObject>(SANDBOX_CLAIMS, world.ns, 'exp-none');
        expect(readyCondition(none)?.reason).not.toBe('ClaimExpired');
        expect(await expiredEvents('exp-none')).toEqual([]);
        expect(await gone(world.client, SANDBOXES, world.ns, 'exp-none')).toBeUndefined();
      });

      it('internal/lifecycle/expiry_test: the earlier shutdownTime wins over finishedAt + ttl', async () => {
        const finishedAt = await finish('exp-shutdown', { ttlSecondsAfterFinished: 3_600 });
        // Set once the claim has finished (a shutdownTime ahead would race a loaded machine).
        const shutdownTime = new Date(Date.now() - 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
        await world.client.patch(SANDBOX_CLAIMS, world.ns, 'exp-shutdown', {
          type: 'merge',
          body: { spec: { lifecycle: { shutdownTime } } },
        });
        // Expired now, an hour before the ttl would have expired it.
        expect(await expiredAt('exp-shutdown')).toBeGreaterThanOrEqual(finishedAt);
        expect(await expiredAt('exp-shutdown')).toBeLessThan(finishedAt + 3_600_000);
      });

      it('internal/lifecycle/expiry_test: finishedAt + ttl wins over a later shutdownTime', async () => {
        const finishedAt = await finish('exp-ttl-first', {
          shutdownTime: inMs(3_600_000),
          ttlSecondsAfterFinished: 1,
        });
        expect(await expiredAt('exp-ttl-first')).toBeGreaterThanOrEqual(finishedAt + 1_000);
      });
    });
  });
}
