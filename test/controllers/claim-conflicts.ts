// Spec §21.3's adoption conflict suite and status-lock cases that need a real interleaving, forced
// with the manager behind the gate (claim-gate.ts): contention exhausted on either adoption write,
// the claim deleted mid-adoption (cancellation), the Sandbox cache lagging the claim's adoption
// (the stale re-patch resolves without a write and the finalized status stays), and the locked
// status patch losing to another writer (dropped: no error, no metrics, the next pass writes it).
import { Annotations } from '@agent-sandbox/api';
import { SANDBOX_CLAIMS, SANDBOX_WARM_POOLS, SANDBOXES } from '@agent-sandbox/controllers';
import { eventually } from '@agent-sandbox/controllers/testing';
import { describe, expect, it } from 'vitest';
import type { TestTarget } from '../support/target.ts';
import type { GateWrite, HeldRequest } from './claim-gate.ts';
import type { Claim, Sandbox } from './claim-invariants.ts';
import {
  claimObject,
  claimWhere,
  controller,
  createPool,
  members,
  readyOn,
  runPods,
  useGateWorld,
  type GateWorld,
} from './claim-gate-world.ts';
import { sumSamples } from './manager-process.ts';

const ATTEMPTS = 5; // client-go's retry.DefaultRetry, which upstream's adoption writes use
const ADOPTION_PATCH = /\/sandboxes\/[^/?]+(\?|$)/;
const ADOPTION_BODY = /"kind":"SandboxClaim"/;
const CLAIM_C = /\/sandboxclaims\/c(\?|$)/;
const CLAIM_C_STATUS = /\/sandboxclaims\/c\/status(\?|$)/;
const TIMEOUT = { timeout: 240_000 };

type Ready = { reason?: string; message?: string; status?: string } | undefined;
const readyOf = (w: GateWrite): Ready =>
  (w.body as Claim | undefined)?.status?.conditions?.find((c) => c.type === 'Ready');

/** The Ready conditions of the manager's status patches of claim c, from write `from` on. */
const statusWrites = (world: GateWorld, from: number): { status: number; ready: Ready }[] =>
  world.gate.writes
    .slice(from)
    .filter((w) => w.method === 'PATCH' && CLAIM_C_STATUS.test(w.path))
    .map((w) => ({ status: w.status, ready: readyOf(w) }));

/**
 * Holds `n` consecutive manager writes matching `method`/`path` (and `body`), each time letting
 * another writer bump the object first, so every one is answered 409 by the server itself.
 * Resolves with the first held request.
 */
async function contend(
  world: GateWorld,
  n: number,
  method: string,
  path: RegExp,
  bump: (held: GateWrite) => Promise<unknown>,
  body?: RegExp,
): Promise<GateWrite> {
  const hold = (): HeldRequest =>
    world.gate.holdNext(method, path, { answer: true, ...(body ? { body } : {}) });
  let held = hold();
  let first: GateWrite | undefined;
  for (let i = 0; i < n; i++) {
    const arrived = await held.arrived;
    first ??= arrived;
    const next = i < n - 1 ? hold() : undefined;
    await bump(arrived);
    expect(await held.release()).toBe(409);
    if (next !== undefined) held = next;
  }
  return first as GateWrite;
}

const sandboxOf = (w: GateWrite): string => /\/sandboxes\/([^/?]+)/.exec(w.path)?.[1] ?? '';

export function defineClaimConflicts(target: TestTarget): void {
  describe(`claim adoption conflicts and status lock (${target})`, () => {
    const w = useGateWorld(target, 'conflict');

    it(
      'Adoption conflict suite: exhausted contention on completing the adoption keeps the reference (AdoptionConflict); a later pass finishes it with the same candidate',
      TIMEOUT,
      async () => {
        const { client, namespace: ns } = w.ct;
        const names = await w.readyPool(2);
        const mark = w.gate.writes.length;
        const contention = contend(
          w,
          ATTEMPTS,
          'PATCH',
          ADOPTION_PATCH,
          (held) => w.touch(SANDBOXES, sandboxOf(held)),
          ADOPTION_BODY,
        );
        await client.create(SANDBOX_CLAIMS, claimObject(ns, 'c'));
        const chosen = sandboxOf(await contention);
        expect(names).toContain(chosen);
        const done = await claimWhere(client, ns, 'c', readyOn(chosen));
        expect(done.metadata.annotations?.[Annotations.SandboxName]).toBe(chosen);
        const path = new RegExp(`/sandboxes/${chosen}(\\?|$)`);
        expect(w.writesTo(path, 'PATCH', mark)).toEqual([...Array(ATTEMPTS).fill(409), 200]);
        expect(statusWrites(w, mark)).toContainEqual({
          status: 200,
          ready: {
            type: 'Ready',
            status: 'False',
            reason: 'AdoptionConflict',
            message: `adoption write conflict: completing adoption of ${chosen} for claim c (conflicting concurrent write); the next pass retries from a converged view`,
            observedGeneration: 1,
            lastTransitionTime: expect.any(String) as unknown,
          },
        });
        // The recorded reference was never dropped, and no other candidate was touched.
        const refDrops = w.gate.writes
          .slice(mark)
          .filter((x) => CLAIM_C.test(x.path) && x.raw.includes('"remove"'));
        expect(refDrops).toEqual([]);
        await w.expectOnlyAdopted(chosen, names);
      },
    );

    it(
      'Adoption conflict suite: exhausted contention on recording the choice → AdoptionConflict, nothing adopted; the candidate goes back and a later pass adopts',
      TIMEOUT,
      async () => {
        const { client, namespace: ns } = w.ct;
        const names = await w.readyPool(2);
        const mark = w.gate.writes.length;
        const contention = contend(w, ATTEMPTS, 'PUT', CLAIM_C, () => w.touch(SANDBOX_CLAIMS, 'c'));
        await client.create(SANDBOX_CLAIMS, claimObject(ns, 'c'));
        await contention;
        const done = await claimWhere(client, ns, 'c', (c) =>
          readyOn(c.status?.sandbox?.name ?? '')(c),
        );
        const chosen = done.status?.sandbox?.name ?? '';
        expect(names).toContain(chosen);
        // The retrying pass may start from a cache that trails its conflict: one more 409.
        const puts = w.writesTo(CLAIM_C, 'PUT', mark);
        expect(puts.slice(0, ATTEMPTS)).toEqual(Array(ATTEMPTS).fill(409));
        expect(puts.at(-1)).toBe(200);
        const conflict = statusWrites(w, mark).find((s) => s.ready?.reason === 'AdoptionConflict');
        expect(conflict?.status).toBe(200);
        expect(conflict?.ready?.message).toBe(
          'adoption write conflict: claim c (conflicting concurrent write); the next pass retries from a converged view',
        );
        // No Sandbox write happened before the choice was recorded.
        const firstPut = w.gate.writes.findIndex(
          (x, i) => i >= mark && x.method === 'PUT' && x.status === 200,
        );
        const early = w.gate.writes
          .slice(mark, firstPut)
          .filter((x) => x.method === 'PATCH' && ADOPTION_PATCH.test(x.path));
        expect(early).toEqual([]);
        await w.expectOnlyAdopted(chosen, names);
      },
    );

    it(
      'Adoption conflict suite: both conflicts resolved in one pass — the recording Update and the adoption patch each lose once, the same candidate is adopted and no AdoptionConflict is ever written',
      TIMEOUT,
      async () => {
        const { client, namespace: ns } = w.ct;
        const names = await w.readyPool(2);
        const mark = w.gate.writes.length;
        const put = w.gate.holdNext('PUT', CLAIM_C, { answer: true });
        const patch = w.gate.holdNext('PATCH', ADOPTION_PATCH, {
          body: ADOPTION_BODY,
          answer: true,
        });
        await client.create(SANDBOX_CLAIMS, claimObject(ns, 'c'));
        const chosen = (await put.arrived).body?.metadata.annotations?.[Annotations.SandboxName];
        await w.touch(SANDBOX_CLAIMS, 'c');
        expect(await put.release()).toBe(409);
        expect(sandboxOf(await patch.arrived)).toBe(chosen);
        await w.touch(SANDBOXES, chosen ?? '');
        expect(await patch.release()).toBe(409);
        await claimWhere(client, ns, 'c', readyOn(chosen ?? ''));
        expect(w.writesTo(CLAIM_C, 'PUT', mark).slice(0, 2)).toEqual([409, 200]);
        const adoptions = w.gate.writes
          .slice(mark)
          .filter((x) => x.method === 'PATCH' && ADOPTION_BODY.test(x.raw))
          .map((x) => `${sandboxOf(x)} ${x.status}`);
        expect(adoptions).toEqual([`${chosen} 409`, `${chosen} 200`]);
        expect(statusWrites(w, mark).map((x) => x.ready?.reason)).not.toContain('AdoptionConflict');
        await w.expectOnlyAdopted(chosen ?? '', names);
      },
    );

    it(
      'Adoption conflict suite: the manager SIGKILLed while its adoption patch is in flight — the restarted manager finishes the recorded adoption, the dead one’s late patch loses (409)',
      TIMEOUT,
      async () => {
        const { client, namespace: ns } = w.ct;
        const names = await w.readyPool(2);
        const held = w.gate.holdNext('PATCH', ADOPTION_PATCH, { body: ADOPTION_BODY });
        await client.create(SANDBOX_CLAIMS, claimObject(ns, 'c'));
        const chosen = sandboxOf(await held.arrived);
        await w.kill();
        const mark = w.gate.writes.length;
        await w.start();
        const done = await claimWhere(client, ns, 'c', readyOn(chosen));
        expect(done.metadata.annotations?.[Annotations.SandboxName]).toBe(chosen);
        expect(await held.release()).toBe(409);
        expect(w.gate.writes.slice(mark).filter((x) => x.method === 'PUT')).toEqual([]);
        expect(w.gate.writes.filter((x) => x.method === 'POST' && x.name === 'c')).toEqual([]);
        await w.expectOnlyAdopted(chosen, names);
      },
    );

    it(
      'Adoption conflict suite: cancellation — the claim deleted while its choice is being recorded: nothing adopted, the member stays the pool’s and the next claim gets it',
      TIMEOUT,
      async () => {
        const { client, namespace: ns } = w.ct;
        const [only] = await w.readyPool(1);
        const held = w.gate.holdNext('PUT', CLAIM_C, { answer: true });
        const created = await client.create(SANDBOX_CLAIMS, claimObject(ns, 'c'));
        const record = await held.arrived;
        expect(record.body?.metadata.annotations?.[Annotations.SandboxName]).toBe(only);
        await client.delete(SANDBOX_CLAIMS, ns, 'c');
        expect(await held.release()).toBe(404);
        await client.create(SANDBOX_CLAIMS, claimObject(ns, 'd'));
        const d = await claimWhere(client, ns, 'd', readyOn(only ?? ''));
        const all = (await client.list<Sandbox>(SANDBOXES, ns)).items;
        const ownedBy = (uid: string | undefined): string[] =>
          all
            .filter((s) => s.metadata.ownerReferences?.some((r) => r.uid === uid))
            .map((s) => s.metadata.name ?? '');
        expect(ownedBy(created.metadata.uid)).toEqual([]);
        expect(ownedBy(d.metadata.uid)).toEqual([only]);
        expect(
          w.gate.writes.filter((x) => x.method === 'POST' && /^[cd]$/.test(x.name ?? '')),
        ).toEqual([]);
      },
    );

    it(
      'Adoption conflict suite: cancellation — the claim deleted while its adoption patch is in flight: the late patch lands, the Sandbox goes with the claim (GC) and the pool refills',
      TIMEOUT,
      async () => {
        const { client, namespace: ns } = w.ct;
        const [only] = await w.readyPool(1);
        const held = w.gate.holdNext('PATCH', ADOPTION_PATCH, {
          body: ADOPTION_BODY,
          answer: true,
        });
        await client.create(SANDBOX_CLAIMS, claimObject(ns, 'c'));
        expect(sandboxOf(await held.arrived)).toBe(only);
        await client.delete(SANDBOX_CLAIMS, ns, 'c');
        expect(await held.release()).toBe(200);
        await eventually(async () => {
          const all = (await client.list<Sandbox>(SANDBOXES, ns)).items;
          const left = all.filter((s) => s.metadata.deletionTimestamp === undefined);
          const replaced =
            left.length === 1 &&
            left[0]?.metadata.name !== only &&
            controller(left[0] as Sandbox) === 'SandboxWarmPool';
          return replaced ? true : undefined;
        }, 90_000);
        expect((await members(client, ns)).map((s) => s.metadata.name)).not.toContain(only);
        expect(w.gate.writes.filter((x) => x.method === 'POST' && x.name === 'c')).toEqual([]);
      },
    );

    it(
      'TestSandboxClaimAdoptionCacheLagRepatchesIdempotently / TestSandboxClaimAdoptionCacheLagPreservesFinalizedStatus: the Sandbox cache lags the adoption; the stale re-patch resolves to "already ours" without a write and the Ready status stays',
      TIMEOUT,
      async () => {
        const { client, namespace: ns } = w.ct;
        const [only] = await w.readyPool(1);
        const name = only ?? '';
        const pause = w.gate.pauseWatches(/\/sandboxes\?/);
        await pause.paused;
        const mark = w.gate.writes.length;
        await client.create(SANDBOX_CLAIMS, claimObject(ns, 'c'));
        await claimWhere(client, ns, 'c', readyOn(name));
        const path = new RegExp(`/sandboxes/${name}(\\?|$)`);
        // The claim's adoption patches (only they carry its ownerReference; the Sandbox
        // controller, woken by Pod events, writes the same Sandbox from its stale cache too).
        const adoptions = (): number[] =>
          w.gate.writes
            .slice(mark)
            .filter((x) => x.method === 'PATCH' && path.test(x.path) && ADOPTION_BODY.test(x.raw))
            .map((x) => x.status);
        // The claim's own status write wakes it; its stale cache still shows a pool member.
        const [adopted, ...stale] = await eventually(() => {
          const s = adoptions();
          return s.length > 1 && !s.includes(0) ? s : undefined;
        });
        expect(adopted).toBe(200);
        expect(stale).toEqual(stale.map(() => 409));
        const statuses = statusWrites(w, mark);
        expect(statuses.at(-1)?.ready?.status).toBe('True');
        const firstTrue = statuses.findIndex((s) => s.ready?.status === 'True');
        expect(statuses.slice(firstTrue).every((s) => s.ready?.status === 'True')).toBe(true);
        const bound = await client.get<Claim>(SANDBOX_CLAIMS, ns, 'c');
        expect(readyOn(name)(bound)).toBe(true);
        pause.resume();
        await claimWhere(client, ns, 'c', readyOn(name));
        const owned = (await client.list<Sandbox>(SANDBOXES, ns)).items.filter(
          (s) => controller(s) === 'SandboxClaim',
        );
        expect(owned.map((s) => s.metadata.name)).toEqual([name]);
      },
    );

    it(
      'TestSandboxClaimPreventsDuplicateAdoptionDuringCacheLag: with the Sandbox cache lagging the adoption and a second Ready member queued, the passes after it re-patch the Sandbox it took (409, nothing written) and never adopt the other',
      TIMEOUT,
      async () => {
        const { client, namespace: ns } = w.ct;
        const names = await w.readyPool(2);
        const pause = w.gate.pauseWatches(/\/sandboxes\?/);
        await pause.paused;
        const mark = w.gate.writes.length;
        await client.create(SANDBOX_CLAIMS, claimObject(ns, 'c'));
        const bound = await claimWhere(client, ns, 'c', (c) => names.some((n) => readyOn(n)(c)));
        const chosen = bound.status?.sandbox?.name ?? '';
        const adoptionsOf = (name: string): number[] =>
          w.gate.writes
            .slice(mark)
            .filter(
              (x) =>
                x.method === 'PATCH' &&
                new RegExp(`/sandboxes/${name}(\\?|$)`).test(x.path) &&
                ADOPTION_BODY.test(x.raw),
            )
            .map((x) => x.status);
        // The claim's own status write wakes it while its Sandbox cache still shows two warm
        // members: the pass must resolve to the one it took, not pop the other.
        const [adopted, ...stale] = await eventually(() => {
          const s = adoptionsOf(chosen);
          return s.length > 1 && !s.includes(0) ? s : undefined;
        });
        expect(adopted).toBe(200);
        expect(stale).toEqual(stale.map(() => 409));
        const other = names.find((n) => n !== chosen) ?? '';
        expect(adoptionsOf(other)).toEqual([]);
        pause.resume();
        await claimWhere(client, ns, 'c', readyOn(chosen));
        await w.expectOnlyAdopted(chosen, names);
        expect(adoptionsOf(other)).toEqual([]);
      },
    );

    it(
      'TestSandboxClaimFreshAdoptionStaleCacheKeepsFinalizedStatus: the claim cache lags a fresh adoption and a pool event wakes the claim — it finds its Sandbox by owner, adopts nothing, creates nothing, and its Ready status never regresses',
      TIMEOUT,
      async () => {
        const { client, namespace: ns } = w.ct;
        const [only] = await w.readyPool(1);
        const name = only ?? '';
        // From the claim's ADDED event on, the manager sees no claim change (the Sandbox's it does).
        const pause = w.gate.pauseWatchesAfter(
          /\/sandboxclaims\?/,
          (e) => e.type === 'ADDED' && e.object.metadata.name === 'c',
        );
        await client.create(SANDBOX_CLAIMS, claimObject(ns, 'c'));
        await pause.paused;
        await claimWhere(client, ns, 'c', readyOn(name));
        const mark = w.gate.writes.length;
        // A pool generation change maps to the claims unbound in the (stale) claim cache.
        await client.patch(SANDBOX_WARM_POOLS, ns, 'pool', {
          type: 'merge',
          body: { spec: { replicas: 2 } },
        });
        // The stale pass stamps first-observed again (its copy lacks it): proof that it ran.
        await eventually(() =>
          w.gate.writes
            .slice(mark)
            .some(
              (x) =>
                CLAIM_C.test(x.path) &&
                x.raw.includes(Annotations.ControllerFirstObservedAt) &&
                x.status !== 0,
            )
            ? true
            : undefined,
        );
        const claimWrites = w.gate.writes
          .slice(mark)
          .filter((x) => /\/sandboxclaims\/c(\/status)?(\?|$)/.test(x.path));
        expect(claimWrites.filter((x) => x.method === 'PUT')).toEqual([]);
        for (const s of statusWrites(w, mark)) {
          expect(s.ready?.status).toBe('True');
        }
        expect(
          w.gate.writes.slice(mark).filter((x) => x.method === 'POST' && x.name === 'c'),
        ).toEqual([]);
        expect(
          w.gate.writes
            .slice(mark)
            .filter((x) => x.method === 'PATCH' && ADOPTION_BODY.test(x.raw)),
        ).toEqual([]);
        pause.resume();
        const after = await claimWhere(client, ns, 'c', readyOn(name));
        expect(after.metadata.annotations?.[Annotations.SandboxName]).toBe(name);
        const owned = (await client.list<Sandbox>(SANDBOXES, ns)).items.filter(
          (s) => controller(s) === 'SandboxClaim',
        );
        expect(owned.map((s) => s.metadata.name)).toEqual([name]);
      },
    );

    it(
      'TestSandboxClaimStatusPatchCarriesOptimisticLock / TestSandboxClaimStaleStatusPatchConflictDroppedWithoutMetrics: a status patch that lost to another writer is dropped (no error, no metrics); the next pass writes it and records readiness once',
      TIMEOUT,
      async () => {
        const { client, namespace: ns } = w.ct;
        await createPool(client, ns, 0);
        await w.start();
        const mark = w.gate.writes.length;
        const held = w.gate.holdNext('PATCH', CLAIM_C_STATUS, {
          body: /"status":"True"/,
          answer: true,
        });
        await client.create(SANDBOX_CLAIMS, claimObject(ns, 'c'));
        await runPods(client, ns, ['c']);
        const stale = await held.arrived;
        await w.touch(SANDBOX_CLAIMS, 'c');
        expect(await held.release()).toBe(409);
        await claimWhere(
          client,
          ns,
          'c',
          (c) =>
            readyOn('c')(c) &&
            c.metadata.annotations?.[Annotations.ClaimFirstReadyAt] !== undefined,
        );
        const patches = w.gate.writes
          .slice(mark)
          .filter((x) => x.method === 'PATCH' && CLAIM_C_STATUS.test(x.path));
        expect(patches.length).toBeGreaterThan(1);
        for (const p of patches) {
          expect(p.contentType).toMatch(/^application\/merge-patch\+json/);
          expect(p.body?.metadata.resourceVersion).toMatch(/^\d+$/);
        }
        expect(stale.body?.metadata.resourceVersion).toMatch(/^\d+$/);
        expect(patches.filter((p) => readyOf(p)?.status === 'True').map((p) => p.status)).toEqual([
          409, 200,
        ]);
        // The server applied the stamp (the test read it) a moment before the gate saw its answer.
        const firstReady = (): number[] =>
          w.gate.writes
            .slice(mark)
            .filter((x) => CLAIM_C.test(x.path) && x.raw.includes(Annotations.ClaimFirstReadyAt))
            .map((x) => x.status);
        await eventually(() => (firstReady().includes(0) ? undefined : true));
        expect(firstReady()).toEqual([200]);
        const metrics = await w.scrape();
        const claimSeries = { controller: 'sandboxclaim' };
        expect(
          sumSamples(metrics, 'controller_runtime_reconcile_total', claimSeries),
        ).toBeGreaterThan(2);
        expect(sumSamples(metrics, 'controller_runtime_reconcile_errors_total', claimSeries)).toBe(
          0,
        );
        expect(
          sumSamples(metrics, 'agent_sandbox_claim_controller_startup_latency_ms_count', {
            launch_type: 'cold',
          }),
        ).toBe(1);
      },
    );
  });
}
