// Spec §21.3 sandboxclaim_controller_test.go, the adoption conflict suite and its neighbours end
// to end (a recorded reference to a Sandbox that is gone or another claim's is cleaned up; an
// assigned pool member without IPs is still adopted), trace context propagation to cold and warm
// Sandboxes, and the claim metrics of spec §19.1 (creation counter labels, the controller
// startup latency, the claim-first-ready-at stamp).
import { Annotations, Labels } from '@agent-sandbox/api';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestTarget } from '../../testing/target.ts';
import { SANDBOX_CLAIMS, type ClaimObject, type SandboxObj } from '../../extensions/resources.ts';
import { AgentSandboxMetrics } from '../../metrics.ts';
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
  openScenarioWorld,
  runningPodStatus,
  setPodStatus,
  testPodTemplate,
  type ScenarioWorld,
} from '../../testing/harness.ts';

const TRACE = '{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}';

export function defineClaimConflictScenarios(target: TestTarget): void {
  describe(`SandboxClaim conflicts, tracing and metrics (${target})`, () => {
    let world: ScenarioWorld;
    const metrics = new AgentSandboxMetrics(new Registry());
    beforeAll(async () => {
      world = await openScenarioWorld(target, { extensions: { metrics } });
      await createTemplate(world, newTemplate(world.ns, 'tpl'));
      await createPool(world, newPool(world.ns, 'cold', 'tpl', { replicas: 0 }));
      const scripted = newTemplate(world.ns, 'tpl-scripted', {
        podTemplate: {
          ...testPodTemplate(),
          spec: { ...testPodTemplate().spec, schedulerName: SCRIPTED_SCHEDULER },
        },
      });
      await createTemplate(world, scripted);
    });
    afterAll(async () => {
      await world?.close();
    });
    const readyClaim = (name: string): Promise<ClaimObject> =>
      where<ClaimObject>(
        world,
        SANDBOX_CLAIMS,
        name,
        (c) => readyCondition(c)?.status === 'True' && c.status?.sandbox?.name !== undefined,
      );
    const assigned = (name: string, pool: string, to: string): ClaimObject => {
      const claim = newClaim(world.ns, name, pool);
      claim.metadata.annotations = { [Annotations.SandboxName]: to };
      return claim;
    };

    describe.concurrent('Adoption conflict suite', () => {
      it('Adoption conflict suite: assigned sandbox deleted → reference cleaned, the claim gets its own Sandbox', async () => {
        await createClaim(world, assigned('ghosted', 'cold', 'ghost-sandbox'));
        const done = await readyClaim('ghosted');
        expect(done.status?.sandbox?.name).toBe('ghosted');
        expect(done.metadata.annotations?.[Annotations.SandboxName]).not.toBe('ghost-sandbox');
      });

      it("TestSandboxClaimClearsAssignedSandboxOwnedByAnotherClaim: a reference to another claim's Sandbox is dropped; that Sandbox stays the other claim's", async () => {
        const owner = await createClaim(world, newClaim(world.ns, 'first-owner', 'cold'));
        await readyClaim('first-owner');
        await createClaim(world, assigned('second', 'cold', 'first-owner'));
        const second = await readyClaim('second');
        expect(second.status?.sandbox?.name).toBe('second');
        const theirs = await world.client.get<SandboxObj>(SANDBOXES, world.ns, 'first-owner');
        expect(theirs.metadata.ownerReferences?.[0]?.uid).toBe(owner.metadata.uid);
      });

      it('TestSandboxClaimPreservesAssignedWarmPoolSandboxWithoutPodIPs: an assigned pool member without IPs is adopted, not abandoned for a cold start', async () => {
        await createPool(world, newPool(world.ns, 'no-ips', 'tpl-scripted', { replicas: 1 }));
        const [member] = await eventually(async () => {
          const m = await listMembers(world, 'no-ips');
          return m.length === 1 ? m : undefined;
        });
        const name = member?.metadata.name ?? '';
        const claim = await createClaim(world, assigned('keeps-assigned', 'no-ips', name));
        await where<SandboxObj>(
          world,
          SANDBOXES,
          name,
          (s) => s.metadata.ownerReferences?.[0]?.uid === claim.metadata.uid,
        );
        await eventually(() =>
          setPodStatus(world.client, world.ns, name, runningPodStatus('10.244.8.8')).then(
            () => true,
          ),
        );
        const done = await readyClaim('keeps-assigned');
        expect(done.status?.sandbox?.name).toBe(name);
        expect(
          await world.client.get(SANDBOXES, world.ns, 'keeps-assigned').then(
            () => 'exists',
            () => 'absent',
          ),
        ).toBe('absent');
      });
    });

    describe.concurrent('TestSandboxClaimWarmCandidateGrace', () => {
      it('TestSandboxClaimWarmCandidateGrace: a member without pod IPs holds the claim for the grace, then it goes cold; the member stays in the pool', async () => {
        await createPool(world, newPool(world.ns, 'unnetworked', 'tpl-scripted', { replicas: 1 }));
        const [member] = await eventually(async () => {
          const m = await listMembers(world, 'unnetworked');
          return m.length === 1 ? m : undefined;
        });
        const claim = await createClaim(world, newClaim(world.ns, 'grace-cold', 'unnetworked'));
        const done = await where<ClaimObject>(
          world,
          SANDBOX_CLAIMS,
          'grace-cold',
          (c) => c.status?.sandbox?.name !== undefined,
        );
        expect(done.status?.sandbox?.name).toBe('grace-cold');
        const cold = await world.client.get<SandboxObj>(SANDBOXES, world.ns, 'grace-cold');
        expect(cold.metadata.ownerReferences?.[0]?.uid).toBe(claim.metadata.uid);
        // The 2 s grace came first: whole-second timestamps leave at least 1 s between them.
        const at = (o: SandboxObj | ClaimObject): number =>
          Date.parse(o.metadata.creationTimestamp ?? '');
        expect(at(cold) - at(claim)).toBeGreaterThanOrEqual(1000);
        const kept = await world.client.get<SandboxObj>(
          SANDBOXES,
          world.ns,
          member?.metadata.name ?? '',
        );
        expect(kept.metadata.ownerReferences?.[0]?.kind).toBe('SandboxWarmPool');
      });
    });

    describe.concurrent('TestGetCandidateRequeuesUnnetworkedWarmPoolSandboxes', () => {
      it('TestGetCandidateRequeuesUnnetworkedWarmPoolSandboxes: a member skipped for lacking pod IPs is pushed back, not discarded; once networked the next claim adopts it', async () => {
        await createPool(world, newPool(world.ns, 'requeued', 'tpl-scripted', { replicas: 1 }));
        const [member] = await eventually(async () => {
          const m = await listMembers(world, 'requeued');
          return m.length === 1 ? m : undefined;
        });
        const name = member?.metadata.name ?? '';
        await createClaim(world, newClaim(world.ns, 'requeue-cold', 'requeued'));
        const cold = await where<ClaimObject>(
          world,
          SANDBOX_CLAIMS,
          'requeue-cold',
          (c) => c.status?.sandbox?.name !== undefined,
        );
        expect(cold.status?.sandbox?.name).toBe('requeue-cold');
        await eventually(() =>
          setPodStatus(world.client, world.ns, name, runningPodStatus('10.244.8.9')).then(
            () => true,
          ),
        );
        await where<SandboxObj>(world, SANDBOXES, name, (x) => (x.status?.podIPs?.length ?? 0) > 0);
        await createClaim(world, newClaim(world.ns, 'requeue-warm', 'requeued'));
        const warm = await readyClaim('requeue-warm');
        expect(warm.status?.sandbox?.name).toBe(name);
      });
    });

    describe.concurrent('TestSandboxClaimLegacyLabelMigration', () => {
      it('TestSandboxClaimLegacyLabelMigration: an assignment in the deprecated label is adopted and moves to the annotation', async () => {
        await createPool(world, newPool(world.ns, 'legacy', 'tpl', { replicas: 1 }));
        await poolSettled(world, 'legacy', 1);
        const [member] = await listMembers(world, 'legacy');
        const name = member?.metadata.name ?? '';
        const claim = newClaim(world.ns, 'legacy-label', 'legacy');
        claim.metadata.labels = { [Labels.SandboxName]: name };
        await createClaim(world, claim);
        const done = await where<ClaimObject>(
          world,
          SANDBOX_CLAIMS,
          'legacy-label',
          (c) =>
            readyCondition(c)?.status === 'True' &&
            c.metadata.annotations?.[Annotations.SandboxName] !== undefined,
        );
        expect(done.status?.sandbox?.name).toBe(name);
        expect(done.metadata.annotations?.[Annotations.SandboxName]).toBe(name);
        expect(done.metadata.labels?.[Labels.SandboxName]).toBeUndefined();
        const adopted = await world.client.get<SandboxObj>(SANDBOXES, world.ns, name);
        expect(adopted.metadata.ownerReferences?.[0]?.uid).toBe(done.metadata.uid);
      });
    });

    describe.concurrent('TestSandboxClaimReconcile tracing', () => {
      it('TestSandboxClaimReconcile: trace context propagated to a cold Sandbox and to an adopted warm one', async () => {
        const cold = newClaim(world.ns, 'traced-cold', 'cold');
        cold.metadata.annotations = { [Annotations.TraceContext]: TRACE };
        await createClaim(world, cold);
        await readyClaim('traced-cold');
        const coldSandbox = await world.client.get<SandboxObj>(SANDBOXES, world.ns, 'traced-cold');
        expect(coldSandbox.metadata.annotations?.[Annotations.TraceContext]).toBe(TRACE);

        await createPool(world, newPool(world.ns, 'traced', 'tpl', { replicas: 1 }));
        await poolSettled(world, 'traced', 1);
        const warm = newClaim(world.ns, 'traced-warm', 'traced');
        warm.metadata.annotations = { [Annotations.TraceContext]: TRACE };
        await createClaim(world, warm);
        const done = await readyClaim('traced-warm');
        expect(done.status?.sandbox?.name).not.toBe('traced-warm');
        const adopted = await world.client.get<SandboxObj>(
          SANDBOXES,
          world.ns,
          done.status?.sandbox?.name ?? '',
        );
        expect(adopted.metadata.annotations?.[Annotations.TraceContext]).toBe(TRACE);
      });
    });

    describe.concurrent('claim metrics', () => {
      it('TestSandboxClaimCreationMetric / TestRecordCreationLatencyMetric / _ClaimFirstReadyAnnotation: launch types, pool, pod condition and template labels; latency observed once; first-ready stamped', async () => {
        await createPool(world, newPool(world.ns, 'metered', 'tpl', { replicas: 1 }));
        await poolSettled(world, 'metered', 1);
        await createClaim(world, newClaim(world.ns, 'metered-warm', 'metered'));
        const warm = await readyClaim('metered-warm');
        await createPool(world, newPool(world.ns, 'metered-empty', 'tpl', { replicas: 0 }));
        await createClaim(world, newClaim(world.ns, 'metered-cold', 'metered-empty'));
        const cold = await readyClaim('metered-cold');
        const created = (await metrics.claimCreationTotal.get()).values.filter(
          (v) => v.labels['namespace'] === world.ns,
        );
        expect(created).toEqual(
          expect.arrayContaining([
            expect.objectContaining({
              value: 1,
              labels: expect.objectContaining({
                launch_type: 'warm',
                warmpool_name: 'metered',
                pod_condition: 'ready',
                sandbox_template: 'tpl',
                created_by: 'unknown',
              }),
            }),
            expect.objectContaining({
              value: 1,
              labels: expect.objectContaining({
                launch_type: 'cold',
                warmpool_name: 'metered-empty',
                pod_condition: 'not_ready',
                sandbox_template: 'tpl',
              }),
            }),
          ]),
        );
        for (const c of [warm, cold]) {
          await where<ClaimObject>(world, SANDBOX_CLAIMS, c.metadata.name ?? '', (x) =>
            /Z$/.test(x.metadata.annotations?.[Annotations.ClaimFirstReadyAt] ?? ''),
          );
        }
        const latency = await metrics.claimControllerStartupLatency.get();
        const counts = latency.values.filter(
          (v) => v.metricName?.endsWith('_count') && v.labels['sandbox_template'] === 'tpl',
        );
        const byType = (t: string): number =>
          counts.filter((v) => v.labels['launch_type'] === t).reduce((a, v) => a + v.value, 0);
        expect(byType('warm')).toBeGreaterThanOrEqual(1);
        expect(byType('cold')).toBeGreaterThanOrEqual(1);
      });
    });
  });
}
