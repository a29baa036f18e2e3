// Spec §21.3 TestSandboxStatusRelevantChange, TestSandboxTemplateCreatePredicate,
// TestMapSandboxTemplateToClaims and TestMapWarmPoolToClaims observed through the API: an
// irrelevant change to a claimed Sandbox runs no claim pass and writes nothing, a Ready change
// reaches the claim; a template edit does not reach a bound claim's Sandbox until the claim's next
// pass, a template creation does (bound claims included); a pool spec change wakes the pool's
// unbound claims only, and a pool change that is not a spec change (generation) wakes none.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResourceRef } from '@agent-sandbox/kube';
import type { TestTarget } from '../../testing/target.ts';
import {
  SANDBOX_CLAIMS,
  SANDBOX_TEMPLATES,
  SANDBOX_WARM_POOLS,
  type ClaimObject,
  type PoolObject,
  type SandboxObj,
} from '../../extensions/resources.ts';
import { SANDBOXES } from '../../sandbox/child-writes.ts';
import { SANDBOX_CLAIM_CONTROLLER_NAME } from '../sandbox-claim-controller.ts';
import {
  createClaim,
  createPool,
  createTemplate,
  newClaim,
  newPool,
  newTemplate,
  poolSettled,
  where,
} from '../../testing/extensions.ts';
import {
  eventually,
  openScenarioWorld,
  setPodStatus,
  type ScenarioWorld,
} from '../../testing/harness.ts';

export function defineClaimPredicateScenarios(target: TestTarget): void {
  describe(`SandboxClaim watch predicates (${target})`, () => {
    let world: ScenarioWorld;
    beforeAll(async () => {
      world = await openScenarioWorld(target, { extensions: {} });
    });
    afterAll(async () => {
      await world?.close();
    });

    // The suites run one after the other: the pass counter is the controller's, not one claim's.
    const claimPasses = async (): Promise<number> =>
      (await world.controller.manager.metrics.reconcileTotal.get()).values
        .filter((v) => v.labels.controller === SANDBOX_CLAIM_CONTROLLER_NAME)
        .reduce((sum, v) => sum + v.value, 0);

    /** Waits until the manager's cache holds `rv` of the object and every queue is idle. */
    const settled = async (ref: ResourceRef, name: string, rv: string): Promise<void> => {
      const cache = world.controller.manager.getInformer(ref).cache;
      const metrics = world.controller.manager.metrics;
      await eventually(async () => {
        if (cache.get(`${world.ns}/${name}`)?.metadata.resourceVersion !== rv) return undefined;
        await new Promise((r) => setTimeout(r, 300));
        const depth = (await metrics.queueDepth.get()).values.reduce((s, v) => s + v.value, 0);
        const active = (await metrics.activeWorkers.get()).values.reduce((s, v) => s + v.value, 0);
        return depth === 0 && active === 0 ? true : undefined;
      });
    };

    /**
     * Waits until the object stops changing and the manager has caught up: a Ready claim still
     * gets its own trailing writes (claim-first-ready-at) and the passes they cause.
     */
    const quiet = (ref: ResourceRef, name: string): Promise<true> =>
      eventually(async () => {
        const rv = (await world.client.get(ref, world.ns, name)).metadata.resourceVersion ?? '';
        await settled(ref, name, rv);
        const now = (await world.client.get(ref, world.ns, name)).metadata.resourceVersion;
        return now === rv ? true : undefined;
      }, 60_000);

    /** A claim bound to a warm member of a fresh pool, its Sandbox and the claim Ready. */
    const boundClaim = async (name: string): Promise<{ claim: ClaimObject; sandbox: string }> => {
      await createTemplate(world, newTemplate(world.ns, `tpl-${name}`));
      await createPool(world, newPool(world.ns, name, `tpl-${name}`, { replicas: 1 }));
      await poolSettled(world, name, 1);
      await createClaim(world, newClaim(world.ns, name, name));
      const claim = await where<ClaimObject>(world, SANDBOX_CLAIMS, name, (c) =>
        (c.status?.conditions ?? []).some((x) => x.type === 'Ready' && x.status === 'True'),
      );
      const sandbox = claim.status?.sandbox?.name ?? '';
      await quiet(SANDBOX_CLAIMS, name);
      await quiet(SANDBOXES, sandbox);
      return { claim, sandbox };
    };

    describe('TestSandboxStatusRelevantChange', () => {
      it('TestSandboxStatusRelevantChange: an annotation on the claimed Sandbox runs no claim pass and writes nothing; a Ready change reaches the claim', async () => {
        const { sandbox } = await boundClaim('relevant');
        const claimRv = (await world.client.get<ClaimObject>(SANDBOX_CLAIMS, world.ns, 'relevant'))
          .metadata.resourceVersion;
        const before = await claimPasses();
        const poked = await world.client.patch<SandboxObj>(SANDBOXES, world.ns, sandbox, {
          type: 'merge',
          body: { metadata: { annotations: { 'test.agent-sandbox.dev/poke': 'x' } } },
        });
        await settled(SANDBOXES, sandbox, poked.metadata.resourceVersion ?? '');
        expect(await claimPasses()).toBe(before);
        const after = await world.client.get<ClaimObject>(SANDBOX_CLAIMS, world.ns, 'relevant');
        expect(after.metadata.resourceVersion).toBe(claimRv);
        // The Pod stops being Ready: the Sandbox's Ready changes, and the claim follows.
        const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
        await setPodStatus(world.client, world.ns, sandbox, {
          phase: 'Running',
          conditions: [
            { type: 'PodScheduled', status: 'True', lastTransitionTime: now },
            { type: 'Ready', status: 'False', lastTransitionTime: now },
          ],
        });
        await where<ClaimObject>(world, SANDBOX_CLAIMS, 'relevant', (c) =>
          (c.status?.conditions ?? []).some((x) => x.type === 'Ready' && x.status === 'False'),
        );
      });
    });

    describe('TestSandboxTemplateCreatePredicate', () => {
      it('TestSandboxTemplateCreatePredicate: a template edit wakes no bound claim; its next pass carries the edit to the Sandbox', async () => {
        const { sandbox } = await boundClaim('edited');
        const label = (s: SandboxObj): string | undefined =>
          s.spec.podTemplate.metadata?.labels?.['team'];
        const template = await world.client.patch(SANDBOX_TEMPLATES, world.ns, 'tpl-edited', {
          type: 'merge',
          body: { spec: { podTemplate: { metadata: { labels: { app: 'agent', team: 'a' } } } } },
        });
        await settled(SANDBOX_TEMPLATES, 'tpl-edited', template.metadata.resourceVersion ?? '');
        const untouched = await world.client.get<SandboxObj>(SANDBOXES, world.ns, sandbox);
        expect(label(untouched)).toBeUndefined();
        await world.client.patch(SANDBOX_CLAIMS, world.ns, 'edited', {
          type: 'merge',
          body: { metadata: { annotations: { 'test.agent-sandbox.dev/poke': 'x' } } },
        });
        await where<SandboxObj>(world, SANDBOXES, sandbox, (s) => label(s) === 'a');
      });
    });

    describe('TestMapSandboxTemplateToClaims', () => {
      it('TestMapSandboxTemplateToClaims: a template created again wakes the bound claims of its pools — the new metadata reaches the Sandbox with no claim event', async () => {
        const { sandbox } = await boundClaim('recreated');
        const label = (s: SandboxObj): string | undefined =>
          s.spec.podTemplate.metadata?.labels?.['team'];
        await world.client.delete(SANDBOX_TEMPLATES, world.ns, 'tpl-recreated');
        await eventually(async () =>
          world.controller.manager
            .getInformer(SANDBOX_TEMPLATES)
            .cache.get(`${world.ns}/tpl-recreated`) === undefined
            ? true
            : undefined,
        );
        const again = newTemplate(world.ns, 'tpl-recreated');
        again.spec.podTemplate.metadata = { labels: { app: 'agent', team: 'b' } };
        await createTemplate(world, again);
        await where<SandboxObj>(world, SANDBOXES, sandbox, (s) => label(s) === 'b');
      });
    });

    describe('TestMapWarmPoolToClaims', () => {
      it('TestMapWarmPoolToClaims: a pool spec change wakes its unbound claim at once (not at the 1m TemplateNotFound requeue); a bound claim of a pool gets no pass from it', async () => {
        await createTemplate(world, newTemplate(world.ns, 'tpl-mapped'));
        await createPool(world, newPool(world.ns, 'mapped', 'tpl-mapped-later', { replicas: 0 }));
        await createClaim(world, newClaim(world.ns, 'waiting', 'mapped'));
        await where<ClaimObject>(world, SANDBOX_CLAIMS, 'waiting', (c) =>
          (c.status?.conditions ?? []).some((x) => x.reason === 'TemplateNotFound'),
        );
        await world.client.patch(SANDBOX_WARM_POOLS, world.ns, 'mapped', {
          type: 'merge',
          body: { spec: { sandboxTemplateRef: { name: 'tpl-mapped' } } },
        });
        // Well inside the minute the TemplateNotFound requeue waits.
        await where<ClaimObject>(
          world,
          SANDBOX_CLAIMS,
          'waiting',
          (c) => c.status?.sandbox?.name === 'waiting',
          30_000,
        );
        await where<ClaimObject>(world, SANDBOX_CLAIMS, 'waiting', (c) =>
          (c.status?.conditions ?? []).some((x) => x.type === 'Ready' && x.status === 'True'),
        );
        await quiet(SANDBOX_CLAIMS, 'waiting');
        await boundClaim('mapped-bound');
        const before = await claimPasses();
        await world.client.patch(SANDBOX_WARM_POOLS, world.ns, 'mapped-bound', {
          type: 'merge',
          body: { spec: { updateStrategy: { type: 'OnReplenish' } } },
        });
        // The pool's own status write (observedGeneration) follows; it passes no filter either.
        await quiet(SANDBOX_WARM_POOLS, 'mapped-bound');
        expect(await claimPasses()).toBe(before);
      });
    });

    describe('TestWarmPoolMapWatchPredicate', () => {
      it('TestWarmPoolMapWatchPredicate: only a pool generation change maps to its claims — a label on the pool (and the pool status write it causes) runs no claim pass, a spec change does', async () => {
        await createPool(world, newPool(world.ns, 'gen-only', 'tpl-gen-only', { replicas: 0 }));
        await createClaim(world, newClaim(world.ns, 'gen-waiting', 'gen-only'));
        await where<ClaimObject>(world, SANDBOX_CLAIMS, 'gen-waiting', (c) =>
          (c.status?.conditions ?? []).some((x) => x.reason === 'TemplateNotFound'),
        );
        await quiet(SANDBOX_CLAIMS, 'gen-waiting');
        await quiet(SANDBOX_WARM_POOLS, 'gen-only');
        const before = await claimPasses();
        const labelled = await world.client.patch<PoolObject>(
          SANDBOX_WARM_POOLS,
          world.ns,
          'gen-only',
          { type: 'merge', body: { metadata: { labels: { 'test.agent-sandbox.dev/poke': 'x' } } } },
        );
        expect(labelled.metadata.generation).toBe(1);
        await quiet(SANDBOX_WARM_POOLS, 'gen-only');
        expect(await claimPasses()).toBe(before);
        const edited = await world.client.patch<PoolObject>(
          SANDBOX_WARM_POOLS,
          world.ns,
          'gen-only',
          { type: 'merge', body: { spec: { updateStrategy: { type: 'Recreate' } } } },
        );
        expect(edited.metadata.generation).toBe(2);
        await eventually(async () => ((await claimPasses()) > before ? true : undefined));
      });
    });
  });
}
