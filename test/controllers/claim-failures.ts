// Spec §21.3's cases where one of the claim controller's writes fails or its cache lags, forced
// with the manager behind the gate (claim-gate.ts): the gate answers one chosen write with the
// API server's transient failure (503, never sent on) or holds the manager's watch events. Upstream
// injects these with interceptor funcs on a fake client; here the server, the manager process and
// its caches are real and only the wire between them misbehaves.
import { Annotations } from '@agent-sandbox/api';
import { SANDBOX_CLAIMS, SANDBOXES } from '@agent-sandbox/controllers';
import { eventually } from '@agent-sandbox/controllers/testing';
import { describe, expect, it } from 'vitest';
import type { TestTarget } from '../support/target.ts';
import type { GateWrite } from './claim-gate.ts';
import type { Claim, Sandbox } from './claim-invariants.ts';
import {
  claimObject,
  claimWhere,
  createPool,
  readyOn,
  runPods,
  useGateWorld,
  type GateWorld,
} from './claim-gate-world.ts';
import { sumSamples } from './manager-process.ts';

const ADOPTION_PATCH = /\/sandboxes\/[^/?]+(\?|$)/;
const ADOPTION_BODY = /"kind":"SandboxClaim"/;
const CLAIM_C = /\/sandboxclaims\/c(\?|$)/;
const CLAIM_C_STATUS = /\/sandboxclaims\/c\/status(\?|$)/;
const SANDBOX_WATCH = /\/sandboxes\?/;
const TIMEOUT = { timeout: 240_000 };

const readyOf = (w: GateWrite): Record<string, unknown> | undefined =>
  (w.body as Claim | undefined)?.status?.conditions?.find((c) => c.type === 'Ready') as
    Record<string, unknown> | undefined;

/** The manager's status patches of claim c from write `from` on, with their answers. */
const statusWrites = (world: GateWorld, from: number): GateWrite[] =>
  world.gate.writes.slice(from).filter((w) => w.method === 'PATCH' && CLAIM_C_STATUS.test(w.path));

/** The claim controller's reconcile outcomes in the manager's /metrics. */
async function claimPasses(world: GateWorld): Promise<{ errors: number; requeues: number }> {
  const text = await world.scrape();
  return {
    errors: sumSamples(text, 'controller_runtime_reconcile_errors_total', {
      controller: 'sandboxclaim',
    }),
    requeues: sumSamples(text, 'controller_runtime_reconcile_total', {
      controller: 'sandboxclaim',
      result: 'requeue_after',
    }),
  };
}

/** Waits for claim c to name a Sandbox other than `not`, runs its Pod and waits for Ready. */
async function readyElsewhere(world: GateWorld, not: string): Promise<Claim> {
  const { client, namespace: ns } = world.ct;
  const moved = await claimWhere(client, ns, 'c', (c) => {
    const name = c.status?.sandbox?.name;
    return name !== undefined && name !== not;
  });
  const name = moved.status?.sandbox?.name ?? '';
  await runPods(client, ns, [name]);
  return claimWhere(client, ns, 'c', readyOn(name));
}

export function defineClaimFailures(target: TestTarget): void {
  describe(`claim write failures and cache lag (${target})`, () => {
    const w = useGateWorld(target, 'failure');

    it(
      'Adoption conflict suite: reference cleanup failure — the adopted member deleted mid-adoption and removing the reference fails: AdoptionConflict "… deleted and reference cleanup failed", the reference kept; a later pass removes it and the claim gets another Sandbox',
      TIMEOUT,
      async () => {
        const { client, namespace: ns } = w.ct;
        const [only] = await w.readyPool(1);
        const mark = w.gate.writes.length;
        const held = w.gate.holdNext('PATCH', ADOPTION_PATCH, {
          body: ADOPTION_BODY,
          answer: true,
        });
        const cleanup = w.gate.failNext('PATCH', CLAIM_C, { body: /"op":"remove"/ });
        await client.create(SANDBOX_CLAIMS, claimObject(ns, 'c'));
        await held.arrived;
        await client.delete(SANDBOXES, ns, only ?? '');
        await eventually(async () => {
          const left = await client.list<Sandbox>(SANDBOXES, ns);
          return left.items.some((s) => s.metadata.name === only) ? undefined : true;
        });
        expect(await held.release()).toBe(404);
        const failed = await cleanup.failed;
        expect(failed.status).toBe(503);
        const conflict = await eventually(
          () =>
            statusWrites(w, mark).find(
              (s) => s.status === 200 && readyOf(s)?.['reason'] === 'AdoptionConflict',
            ),
          60_000,
        );
        expect(readyOf(conflict)?.['message']).toBe(
          `adoption write conflict: sandbox ${only} deleted and reference cleanup failed; the next pass retries from a converged view`,
        );
        // The failed removal was the only one before the conflict was reported: the reference
        // stayed, and the next pass (backoff, the pass failed) drops it with a merge patch.
        const at = w.gate.writes.indexOf(conflict);
        const removals = w.gate.writes
          .slice(mark, at)
          .filter((x) => x.method === 'PATCH' && CLAIM_C.test(x.path) && /remove|null/.test(x.raw));
        expect(removals).toEqual([failed]);
        const done = await readyElsewhere(w, only ?? '');
        expect(done.metadata.annotations?.[Annotations.SandboxName]).not.toBe(only);
        const later = w.gate.writes
          .slice(at)
          .filter((x) => x.method === 'PATCH' && CLAIM_C.test(x.path) && x.raw.includes('null'));
        expect(later.map((x) => x.status)).toContain(200);
      },
    );

    it(
      'TestReconcilePropagatesAnnotationPatchError: the first-observed stamp failing ends the pass with the error — no status written in it — and the retry stamps and reports',
      TIMEOUT,
      async () => {
        const { client, namespace: ns } = w.ct;
        await w.start();
        const stamp = w.gate.failNext('PATCH', CLAIM_C, {
          body: new RegExp(Annotations.ControllerFirstObservedAt.replaceAll('.', '\\.')),
        });
        const mark = w.gate.writes.length;
        await client.create(SANDBOX_CLAIMS, claimObject(ns, 'c', 'absent'));
        const failed = await stamp.failed;
        const done = await claimWhere(
          client,
          ns,
          'c',
          (c) => c.status?.conditions?.some((x) => x.reason === 'WarmPoolNotFound') ?? false,
        );
        expect(done.metadata.annotations?.[Annotations.ControllerFirstObservedAt]).toMatch(/Z$/);
        const writes = w.gate.writes
          .slice(mark)
          .filter((x) => CLAIM_C.test(x.path) || CLAIM_C_STATUS.test(x.path));
        const at = writes.indexOf(failed);
        // The failed stamp comes first; the pass wrote nothing after it, the retry re-stamped.
        expect(at).toBe(0);
        expect(writes[1]?.path).toMatch(CLAIM_C);
        expect(writes[1]?.raw).toContain(Annotations.ControllerFirstObservedAt);
        expect(writes[1]?.status).toBe(200);
        expect((await claimPasses(w)).errors).toBeGreaterThanOrEqual(1);
      },
    );

    it(
      'TestSandboxClaimReconcile_PatchErrorPreservesStatus: the bound Sandbox’s metadata patch failing reports ReconcilerError and keeps status.sandbox; the retry patches and the claim is Ready again',
      TIMEOUT,
      async () => {
        const { client, namespace: ns } = w.ct;
        const [only] = await w.readyPool(1);
        await client.create(SANDBOX_CLAIMS, claimObject(ns, 'c'));
        // Ready, and the Ready pass's trailing first-ready-at stamp in: a stamp landing after the
        // spec edit below would make the failing pass's locked status patch lose (409, dropped)
        // and the retry write Ready without ReconcilerError ever being written.
        await claimWhere(
          client,
          ns,
          'c',
          (c) =>
            readyOn(only ?? '')(c) &&
            c.metadata.annotations?.[Annotations.ClaimFirstReadyAt] !== undefined,
        );
        const sandboxPatch = new RegExp(`/sandboxes/${only}(\\?|$)`);
        const patch = w.gate.failNext('PATCH', sandboxPatch, { body: /sandbox\.users\.io\/team/ });
        const mark = w.gate.writes.length;
        await client.patch(SANDBOX_CLAIMS, ns, 'c', {
          type: 'merge',
          body: { spec: { additionalPodMetadata: { labels: { 'sandbox.users.io/team': 'a' } } } },
        });
        await patch.failed;
        const failedPass = await eventually(
          () =>
            statusWrites(w, mark).find(
              (s) => s.status === 200 && readyOf(s)?.['reason'] === 'ReconcilerError',
            ),
          60_000,
        );
        expect(String(readyOf(failedPass)?.['message'])).toContain('etcdserver: request timed out');
        // A merge patch that kept the binding: status.sandbox is not touched.
        expect(failedPass.raw).not.toMatch(/"sandbox":null/);
        const mid = await client.get<Claim>(SANDBOX_CLAIMS, ns, 'c');
        expect(mid.status?.sandbox?.name).toBe(only);
        await eventually(async () => {
          const s = await client.get<Sandbox>(SANDBOXES, ns, only ?? '');
          return s.spec.podTemplate.metadata?.labels?.['sandbox.users.io/team'] === 'a'
            ? true
            : undefined;
        }, 60_000);
        const again = await claimWhere(client, ns, 'c', readyOn(only ?? ''));
        expect(again.status?.sandbox?.name).toBe(only);
        expect(statusWrites(w, mark).some((s) => String(s.raw).includes('"sandbox":null'))).toBe(
          false,
        );
      },
    );

    it(
      'TestCreateSandboxToleratesAlreadyExists: the Sandbox cache lags the cold create — each retry’s AlreadyExists is SandboxCreatePending, requeued without an error (no backoff) and without erasing the binding; once the cache catches up the claim is Ready on its one Sandbox',
      TIMEOUT,
      async () => {
        const { client, namespace: ns } = w.ct;
        await createPool(client, ns, 0);
        await w.start();
        // From here on the manager's Sandbox caches see nothing new: not its own cold create either.
        const pause = w.gate.pauseWatches(SANDBOX_WATCH);
        const mark = w.gate.writes.length;
        await client.create(SANDBOX_CLAIMS, claimObject(ns, 'c'));
        const creates = (): number[] =>
          w.gate.writes
            .slice(mark)
            .filter(
              (x) => x.method === 'POST' && x.name === 'c' && /\/sandboxes(\?|$)/.test(x.path),
            )
            .map((x) => x.status);
        const conflicts = (): number => creates().filter((s) => s === 409).length;
        await eventually(() => (conflicts() >= 1 ? true : undefined));
        const before = await claimPasses(w);
        // Retries come without backoff, so several may land between two polls: count on from
        // what was seen after the scrape. The pass behind the next 409 ends after the scrape, and
        // the one after it starts only once that pass is counted (one key, one worker at a time).
        const seen = conflicts();
        await eventually(() => (conflicts() >= Math.max(3, seen + 2) ? true : undefined));
        const after = await claimPasses(w);
        expect(after.errors).toBe(before.errors);
        expect(after.requeues).toBeGreaterThan(before.requeues);
        const pending = await client.get<Claim>(SANDBOX_CLAIMS, ns, 'c');
        expect(pending.status?.sandbox?.name).toBe('c');
        pause.resume();
        await runPods(client, ns, ['c']);
        await claimWhere(client, ns, 'c', readyOn('c'));
        expect(creates()[0]).toBe(201);
        expect(
          creates()
            .slice(1)
            .every((s) => s === 409),
        ).toBe(true);
        const owned = (await client.list<Sandbox>(SANDBOXES, ns)).items;
        expect(owned.map((s) => s.metadata.name)).toEqual(['c']);
      },
    );
  });
}
