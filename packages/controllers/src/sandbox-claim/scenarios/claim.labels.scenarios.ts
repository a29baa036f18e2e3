// Spec §21.3 TestSandboxClaimTimingPredicates (the claim's first-seen time is keyed by name and
// UID: a claim created again under the same name is stamped anew) and TestGetLaunchType /
// TestInitializeSandboxLaunchTypeLabel (§12.4 step 1: a bound Sandbox missing the launch-type
// label gets it back — warm when adopted, cold when named after the claim — and an existing
// value is never overwritten), end to end.
import { Annotations, Labels } from '@agent-sandbox/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestTarget } from '../../testing/target.ts';
import {
  SANDBOX_CLAIMS,
  SANDBOX_TEMPLATES,
  type ClaimObject,
  type SandboxObj,
} from '../../extensions/resources.ts';
import { SANDBOXES } from '../../sandbox/child-writes.ts';
import {
  createClaim,
  createPool,
  createTemplate,
  isReady,
  newClaim,
  newPool,
  newTemplate,
  poolSettled,
  where,
} from '../../testing/extensions.ts';
import { eventually, gone, openScenarioWorld, type ScenarioWorld } from '../../testing/harness.ts';

export function defineClaimLabelScenarios(target: TestTarget): void {
  describe(`SandboxClaim first-seen times and launch types (${target})`, () => {
    let world: ScenarioWorld;
    beforeAll(async () => {
      world = await openScenarioWorld(target, { extensions: {} });
      await createTemplate(world, newTemplate(world.ns, 'tpl'));
      await createPool(world, newPool(world.ns, 'cold', 'tpl', { replicas: 0 }));
    });
    afterAll(async () => {
      await world?.close();
    });
    const ready = (name: string): Promise<ClaimObject> =>
      where<ClaimObject>(world, SANDBOX_CLAIMS, name, isReady, 60_000);
    const firstSeen = (c: ClaimObject): number =>
      Date.parse(c.metadata.annotations?.[Annotations.ControllerFirstObservedAt] ?? '');
    /** Sets (or, with null, removes) the Sandbox's launch-type label, then wakes its claim. */
    const relabel = async (sandbox: string, claim: string, value: string | null): Promise<void> => {
      await world.client.patch(SANDBOXES, world.ns, sandbox, {
        type: 'merge',
        body: { metadata: { labels: { [Labels.LaunchType]: value } } },
      });
      // A label edit is no claim event (TestSandboxStatusRelevantChange); a claim edit is.
      await world.client.patch(SANDBOX_CLAIMS, world.ns, claim, {
        type: 'merge',
        body: { metadata: { labels: { 'sandbox.users.io/poke': String(Date.now()) } } },
      });
    };
    const launchType = (sandbox: string, want: string): Promise<SandboxObj> =>
      where<SandboxObj>(
        world,
        SANDBOXES,
        sandbox,
        (s) => s.metadata.labels?.[Labels.LaunchType] === want,
        60_000,
      );

    describe.concurrent('TestSandboxClaimTimingPredicates', () => {
      it('TestSandboxClaimTimingPredicates: a claim deleted and created again under its name is stamped from its own first sighting, not the old one’s', async () => {
        await createClaim(world, newClaim(world.ns, 'again', 'cold'));
        const first = await ready('again');
        await world.client.delete(SANDBOX_CLAIMS, world.ns, 'again');
        await eventually(() => gone(world.client, SANDBOX_CLAIMS, world.ns, 'again'), 60_000);
        await eventually(() => gone(world.client, SANDBOXES, world.ns, 'again'), 60_000);
        const created = await createClaim(world, newClaim(world.ns, 'again', 'cold'));
        const second = await ready('again');
        expect(second.metadata.uid).toBe(created.metadata.uid);
        expect(second.metadata.uid).not.toBe(first.metadata.uid);
        expect(firstSeen(second)).toBeGreaterThan(firstSeen(first));
        // Seen no earlier than its creation (whole seconds on the server).
        const createdAt = Date.parse(created.metadata.creationTimestamp ?? '');
        expect(firstSeen(second)).toBeGreaterThanOrEqual(createdAt);
      });
    });

    describe.concurrent('TestGetLaunchType', () => {
      it('TestGetLaunchType / TestInitializeSandboxLaunchTypeLabel: a removed launch-type label comes back cold on a claim-named Sandbox and warm on an adopted one; an existing value is kept', async () => {
        await createPool(world, newPool(world.ns, 'warm', 'tpl', { replicas: 1 }));
        await poolSettled(world, 'warm', 1);
        await createClaim(world, newClaim(world.ns, 'lt-cold', 'cold'));
        await createClaim(world, newClaim(world.ns, 'lt-warm', 'warm'));
        const warm = (await ready('lt-warm')).status?.sandbox?.name ?? '';
        expect(warm).not.toBe('lt-warm');
        await ready('lt-cold');
        await relabel('lt-cold', 'lt-cold', null);
        await relabel(warm, 'lt-warm', null);
        await launchType('lt-cold', 'cold');
        await launchType(warm, 'warm');
        // Never overwritten: the claim keeps a value it did not write. The template edit makes
        // the claim's next pass visible (it carries the edit to its Sandbox).
        await world.client.patch(SANDBOX_TEMPLATES, world.ns, 'tpl', {
          type: 'merge',
          body: {
            spec: { podTemplate: { metadata: { labels: { 'sandbox.users.io/rev': '2' } } } },
          },
        });
        await relabel(warm, 'lt-warm', 'cold');
        const after = await where<SandboxObj>(
          world,
          SANDBOXES,
          warm,
          (s) => s.spec.podTemplate.metadata?.labels?.['sandbox.users.io/rev'] === '2',
          60_000,
        );
        expect(after.metadata.labels?.[Labels.LaunchType]).toBe('cold');
      });
    });
  });
}
