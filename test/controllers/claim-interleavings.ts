// The interleavings behind the claim storm's exclusivity bug (issue 10), forced one at a time with
// the manager as a child process behind a gate (claim-w.gate.ts): (1) the manager is SIGKILLed while
// its cold create is in flight and the create lands after the restarted manager's first pass;
// (2) the manager's claim and Sandbox caches lag its adoption writes and a pool event wakes the
// claim. Either used to leave the claim controlling a warm Sandbox and a cold one named after it.
// Pool members use the scripted scheduler: the test decides when each Pod runs.
import { Annotations } from '@agent-sandbox/api';
import { SANDBOX_CLAIMS, SANDBOX_WARM_POOLS, SANDBOXES } from '@agent-sandbox/controllers';
import { eventually } from '@agent-sandbox/controllers/testing';
import type { KubeObject } from '@agent-sandbox/kube-types';
import { describe, expect, it } from 'vitest';
import type { TestTarget } from '../support/target.ts';
import type { Sandbox } from './claim-invariants.ts';
import {
  claimObject,
  claimWhere,
  controller,
  createPool,
  members,
  readyOn,
  runPods,
  useGateWorld,
} from './claim-gate-world.ts';

export function defineClaimInterleavings(target: TestTarget): void {
  describe(`claim exclusivity interleavings (${target})`, () => {
    const w = useGateWorld(target, 'interleave');
    const start = (flags: string[] = []) => w.start(flags);

    it(
      'SIGKILL between the cold create and the status write, the create landing after the restart: the claim keeps its recorded cold Sandbox, the warm one stays in the pool',
      { timeout: 240_000 },
      async () => {
        const { client, namespace: ns } = w.ct;
        await createPool(client, ns, 1);
        const first = await start();
        // The member's Pod does not run yet: the claim finds no networked candidate and goes cold.
        const [warm] = await eventually(async () => {
          const m = await members(client, ns);
          return m.length === 1 ? m : undefined;
        });
        const held = w.gate.holdNext('POST', /\/sandboxes(\?|$)/);
        await client.create(SANDBOX_CLAIMS, claimObject(ns, 'c'));
        const create = await held.arrived;
        expect(create.name).toBe('c');
        await first.kill();
        // Now a Ready warm candidate exists when the next manager's first pass runs.
        await runPods(client, ns, [warm?.metadata.name ?? '']);
        await start();
        await runPods(client, ns, ['c']);
        await claimWhere(client, ns, 'c', readyOn('c'));
        // The dead manager's create lands last: the Sandbox exists already.
        expect(await held.release()).toBe(409);
        const after = await members(client, ns);
        expect(after.map((s) => s.metadata.name)).toEqual([warm?.metadata.name]);
        expect(controller(after[0] as KubeObject)).toBe('SandboxWarmPool');
        const owned = (await client.list<Sandbox>(SANDBOXES, ns)).items.filter(
          (s) => controller(s) === 'SandboxClaim',
        );
        expect(owned.map((s) => s.metadata.name)).toEqual(['c']);
      },
    );

    it(
      'Adoption conflict suite: a conflict on recording the choice is retried in the same pass with the same candidate',
      { timeout: 240_000 },
      async () => {
        const { client, namespace: ns } = w.ct;
        const names = await w.readyPool(2);
        const claimPath = /\/sandboxclaims\/c(\?|$)/;
        const held = w.gate.holdNext('PUT', claimPath, { answer: true });
        const mark = w.gate.writes.length;
        await client.create(SANDBOX_CLAIMS, claimObject(ns, 'c'));
        const record = await held.arrived;
        const chosen = record.body?.metadata.annotations?.[Annotations.SandboxName] ?? '';
        expect(names).toContain(chosen);
        await w.touch(SANDBOX_CLAIMS, 'c'); // another writer gets in first
        expect(await held.release()).toBe(409);
        await claimWhere(client, ns, 'c', readyOn(chosen));
        expect(w.writesTo(claimPath, 'PUT', mark).slice(0, 2)).toEqual([409, 200]);
        await w.expectOnlyAdopted(chosen, names);
      },
    );

    it(
      'Adoption conflict suite: a conflict on completing the adoption never switches candidates',
      { timeout: 240_000 },
      async () => {
        const { client, namespace: ns } = w.ct;
        const names = await w.readyPool(2);
        const held = w.gate.holdNext('PATCH', /\/sandboxes\/[^/?]+(\?|$)/, {
          body: /"kind":"SandboxClaim"/,
          answer: true,
        });
        const mark = w.gate.writes.length;
        await client.create(SANDBOX_CLAIMS, claimObject(ns, 'c'));
        const completion = await held.arrived;
        const chosen = /\/sandboxes\/([^/?]+)/.exec(completion.path)?.[1] ?? '';
        await w.touch(SANDBOXES, chosen); // the locked patch now carries a stale resourceVersion
        expect(await held.release()).toBe(409);
        const done = await claimWhere(client, ns, 'c', readyOn(chosen));
        const path = new RegExp(`/sandboxes/${chosen}(\\?|$)`);
        expect(w.writesTo(path, 'PATCH', mark).slice(0, 2)).toEqual([409, 200]);
        const adopted = await client.get<Sandbox>(SANDBOXES, ns, chosen);
        expect(adopted.metadata.ownerReferences?.[0]?.uid).toBe(done.metadata.uid);
        await w.expectOnlyAdopted(chosen, names);
      },
    );

    // The flag skips only the first-observed stamp; claim-first-ready-at is the metrics'
    // double-count guard and is stamped either way (one patch, after the Ready status write).
    for (const disabled of [true, false]) {
      it(
        `sandboxclaim_rawpatch_test: a warm adoption ${disabled ? 'with --disable-claim-observability-annotations stamps no first-observed, only the first-ready guard' : 'stamps both, first-observed riding along in the recording Update (control)'}`,
        { timeout: 240_000 },
        async () => {
          const { client, namespace: ns } = w.ct;
          const flags = disabled ? ['--disable-claim-observability-annotations'] : [];
          await w.readyPool(1, flags);
          const mark = w.gate.writes.length;
          await client.create(SANDBOX_CLAIMS, claimObject(ns, 'c'));
          const done = await claimWhere(
            client,
            ns,
            'c',
            (c) =>
              readyOn(c.status?.sandbox?.name ?? '')(c) &&
              c.metadata.annotations?.[Annotations.ClaimFirstReadyAt] !== undefined,
          );
          const claimWrites = w.gate.writes
            .slice(mark)
            .filter((w) => /\/sandboxclaims\/c(\?|$)/.test(w.path));
          const expected = disabled
            ? [Annotations.ClaimFirstReadyAt]
            : [Annotations.ControllerFirstObservedAt, Annotations.ClaimFirstReadyAt];
          const observability = [
            Annotations.ControllerFirstObservedAt,
            Annotations.ClaimFirstReadyAt,
          ];
          const stamped = observability.filter((k) => done.metadata.annotations?.[k] !== undefined);
          expect(stamped).toEqual(expected);
          // first-observed rides along in the recording Update; only first-ready costs a patch.
          const patches = claimWrites.filter(
            (w) =>
              w.method === 'PATCH' &&
              observability.some((k) => w.body?.metadata.annotations?.[k] !== undefined),
          );
          expect(patches.length).toBe(1);
          const carries = (k: string): boolean =>
            claimWrites.some((w) => w.body?.metadata.annotations?.[k] !== undefined);
          expect(observability.filter(carries)).toEqual(expected);
        },
      );
    }

    it(
      "the claim and Sandbox caches lag the claim's adoption and a pool event wakes it: no cold create beside the adopted Sandbox",
      { timeout: 240_000 },
      async () => {
        const { client, namespace: ns } = w.ct;
        await createPool(client, ns, 1);
        await start();
        const [warm] = await eventually(async () => {
          const m = await members(client, ns);
          return m.length === 1 ? m : undefined;
        });
        const warmName = warm?.metadata.name ?? '';
        await runPods(client, ns, [warmName]);
        await eventually(async () => {
          const pool = await client.get<KubeObject & { status?: { readyReplicas?: number } }>(
            SANDBOX_WARM_POOLS,
            ns,
            'pool',
          );
          return pool.status?.readyReplicas === 1 ? true : undefined;
        }, 60_000);
        // From the claim's ADDED event on, the manager sees no claim or Sandbox change.
        const pause = w.gate.pauseWatchesAfter(
          /\/(sandboxclaims|sandboxes)\?/,
          (e) =>
            e.type === 'ADDED' &&
            e.object.kind === 'SandboxClaim' &&
            e.object.metadata.name === 'c',
        );
        await client.create(SANDBOX_CLAIMS, claimObject(ns, 'c'));
        await pause.paused;
        await claimWhere(client, ns, 'c', readyOn(warmName));
        const mark = w.gate.writes.length;
        // A generation change of the pool maps to its claims unbound in the (stale) claim cache.
        await client.patch(SANDBOX_WARM_POOLS, ns, 'pool', {
          type: 'merge',
          body: { spec: { replicas: 2 } },
        });
        const next = await eventually(() =>
          w.gate.writes
            .slice(mark)
            .find(
              (w) =>
                (w.method === 'POST' && w.name === 'c') ||
                (w.method === 'PUT' && /\/sandboxclaims\/c(\?|$)/.test(w.path) && w.status !== 0),
            ),
        );
        // The stale pass tried to record its choice and lost to the recorded adoption.
        expect(next).toMatchObject({ method: 'PUT', status: 409 });
        pause.resume();
        const replacement = await eventually(async () =>
          (await members(client, ns)).find((s) => s.metadata.name !== warmName),
        );
        await runPods(client, ns, [replacement.metadata.name ?? '']);
        await claimWhere(client, ns, 'c', readyOn(warmName));
        expect(w.gate.writes.filter((w) => w.method === 'POST' && w.name === 'c')).toEqual([]);
        const owned = (await client.list<Sandbox>(SANDBOXES, ns)).items.filter(
          (s) => controller(s) === 'SandboxClaim',
        );
        expect(owned.map((s) => s.metadata.name)).toEqual([warmName]);
      },
    );
  });
}
