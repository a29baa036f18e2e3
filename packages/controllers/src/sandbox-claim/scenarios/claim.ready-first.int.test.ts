// ADR 0039 on the embedded API server: a warm claim's Ready status write commits before the
// writes its adoption sets off — the pool's replacement member and the Sandbox controller's Pod
// patch of the adopted Sandbox — and the pool still refills. Revisions are the store's commit
// order. The wait is long here (60 s) so a loaded machine cannot end it before the status write:
// the order then holds whatever the load. (In this harness the order also held without the wait;
// the refill that follows is what the wait must never prevent.)
import { Labels, nameHash } from '@agent-sandbox/api';
import { PODS, type WatchEvent } from '@agent-sandbox/kube';
import type { KubeObject } from '@agent-sandbox/kube-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_CLAIMS, type ClaimObject } from '../../extensions/resources.ts';
import { SANDBOXES } from '../../sandbox/child-writes.ts';
import {
  createClaim,
  createPool,
  createTemplate,
  listMembers,
  newClaim,
  newPool,
  newTemplate,
  poolMembers,
  poolSettled,
  readyCondition,
  where,
} from '../../testing/extensions.ts';
import { eventually, openScenarioWorld, type ScenarioWorld } from '../../testing/harness.ts';
import { AdoptionsInFlight } from '../../warm-queue/adoptions-in-flight.ts';

interface Seen {
  type: WatchEvent<KubeObject>['type'];
  object: KubeObject;
}

/** Every event of `ref` in the namespace from revision `from` on, in order, until aborted. */
function record(
  world: ScenarioWorld,
  ref: typeof SANDBOXES,
  from: string,
  signal: AbortSignal,
): Seen[] {
  const seen: Seen[] = [];
  void (async () => {
    for await (const e of world.client.watch<KubeObject>(ref, world.ns, {
      resourceVersion: from,
      signal,
    }))
      if (e.type !== 'BOOKMARK') seen.push({ type: e.type, object: e.object });
  })().catch(() => undefined);
  return seen;
}

const revision = (e: Seen | undefined): number => Number(e?.object.metadata.resourceVersion ?? NaN);

describe('SandboxClaim: the Ready write before the refill (ADR 0039, embedded)', () => {
  let world: ScenarioWorld;
  const adoptions = new AdoptionsInFlight(60_000);
  beforeAll(async () => {
    world = await openScenarioWorld('embedded', { extensions: { adoptionsInFlight: adoptions } });
    await createTemplate(world, newTemplate(world.ns, 'tpl'));
  });
  afterAll(async () => {
    await world?.close();
  });

  it('the claim is Ready at a revision below the replacement member and the adopted Pod patch', async () => {
    await createPool(world, newPool(world.ns, 'first', 'tpl', { replicas: 1 }));
    await poolSettled(world, 'first', 1);
    const [member] = await poolMembers(world, 'first', 1);
    const adopted = member?.metadata.name ?? '';
    const from = (await world.client.list(SANDBOXES, world.ns)).metadata.resourceVersion ?? '';
    const stop = new AbortController();
    const claims = record(world, SANDBOX_CLAIMS, from, stop.signal);
    const sandboxes = record(world, SANDBOXES, from, stop.signal);
    const pods = record(world, PODS, from, stop.signal);
    try {
      await createClaim(world, newClaim(world.ns, 'first-claim', 'first'));
      const ready = await where<ClaimObject>(
        world,
        SANDBOX_CLAIMS,
        'first-claim',
        (c) => readyCondition(c)?.reason === 'DependenciesReady',
      );
      expect(ready.status?.sandbox?.name).toBe(adopted);
      // The pool refills, with its own member: the wait delays it, never prevents it.
      await eventually(async () => {
        const members = await listMembers(world, 'first');
        return members.length === 1 && members[0]?.metadata.name !== adopted ? true : undefined;
      });
      await poolSettled(world, 'first', 1);
      await where<KubeObject>(
        world,
        PODS,
        adopted,
        (p) => p.metadata.labels?.[Labels.WarmPoolSandbox] === undefined,
      );
      const readyAt = revision(
        claims.find((e) => readyCondition(e.object as ClaimObject)?.reason === 'DependenciesReady'),
      );
      const refillAt = revision(
        sandboxes.find(
          (e) =>
            e.type === 'ADDED' &&
            e.object.metadata.labels?.[Labels.WarmPoolSandbox] === nameHash('first'),
        ),
      );
      const podPatchAt = revision(
        pods.find(
          (e) =>
            e.object.metadata.name === adopted &&
            e.object.metadata.labels?.[Labels.WarmPoolSandbox] === undefined,
        ),
      );
      expect(readyAt).toBeLessThan(refillAt);
      expect(readyAt).toBeLessThan(podPatchAt);
      expect(adoptions.count()).toBe(0);
      expect(await listMembers(world, 'first')).toHaveLength(1);
    } finally {
      stop.abort();
    }
  });
});
