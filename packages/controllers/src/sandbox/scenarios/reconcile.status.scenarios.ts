// Spec §21.1 status scenarios end to end: TestSetServiceStatusCustomDomain,
// TestSandboxReconcile_ConditionsDoNotAccumulate, TestReconcile_TracingNormalization,
// TestReconcileCoalescesNodeNameStatusWrite, and the Ready / Finished / Suspended / PodScheduled
// condition transitions upstream's controller makes (spec §8.1), with exact reasons, messages,
// lastTransitionTime and observedGeneration.
import { Labels } from '@agent-sandbox/api';
import { PODS, isNotFound, type KubeClient } from '@agent-sandbox/kube';
import type { KubeObject, Pod } from '@agent-sandbox/kube-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestTarget } from '../../testing/target.ts';
import {
  RecordingTracer,
  condition,
  eventually,
  getSandbox,
  markPodRunning,
  openScenarioWorld,
  pokeAndSettle,
  scriptedSandbox,
  setPodStatus,
  waitForCondition,
  waitForPod,
  watchSandbox,
  type SandboxObject,
  type ScenarioWorld,
} from '../../testing/harness.ts';
import { SANDBOXES } from '../sandbox-reconciler.ts';

type PodObject = Pod & KubeObject;

/** Past the one-second resolution of lastTransitionTime, so a reset would show. */
const nextSecond = (): Promise<void> => new Promise((r) => setTimeout(r, 1_100));

/**
 * Binds the Pod to `node` as kube-scheduler does (pods/binding). The embedded server has no
 * binding subresource yet; there the test sets spec.nodeName directly (it does not enforce Pod
 * spec immutability either), which is the same change as seen by the controller.
 */
async function bindPod(client: KubeClient, ns: string, name: string, node: string) {
  try {
    await client.request('POST', `/api/v1/namespaces/${ns}/pods/${name}/binding`, {
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: { name, namespace: ns },
      target: { apiVersion: 'v1', kind: 'Node', name: node },
    });
  } catch (err: unknown) {
    if (!isNotFound(err) && !/405|not supported|MethodNotAllowed/i.test(String(err))) throw err;
    await client.patch(PODS, ns, name, { type: 'merge', body: { spec: { nodeName: node } } });
  }
}

function conditionTypes(s: SandboxObject): string[] {
  return (s.status?.conditions ?? []).map((c) => c.type);
}

export function defineReconcileStatusScenarios(target: TestTarget): void {
  describe(`Sandbox status §11.8 (${target})`, () => {
    let world: ScenarioWorld;
    let custom: ScenarioWorld;
    const tracer = new RecordingTracer();
    beforeAll(async () => {
      [world, custom] = await Promise.all([
        openScenarioWorld(target),
        openScenarioWorld(target, { clusterDomain: 'corp.example', tracer }),
      ]);
    });
    afterAll(async () => {
      await Promise.all([world?.close(), custom?.close()]);
    });

    describe.concurrent('status', () => {
      it('TestSetServiceStatusCustomDomain: FQDN with cluster.local and with --cluster-domain', async () => {
        await Promise.all(
          [world, custom].map((w) =>
            w.client.create(SANDBOXES, scriptedSandbox(w.ns, 'dns', { service: true })),
          ),
        );
        const [byDefault, byFlag] = await Promise.all(
          [world, custom].map((w) =>
            eventually(async () => {
              const s = await getSandbox(w.client, w.ns, 'dns');
              return s.status?.serviceFQDN !== undefined ? s : undefined;
            }),
          ),
        );
        expect(byDefault?.status?.serviceFQDN).toBe(`dns.${world.ns}.svc.cluster.local`);
        expect(byFlag?.status?.serviceFQDN).toBe(`dns.${custom.ns}.svc.corp.example`);
        expect(byFlag?.status?.service).toBe('dns');
      });

      it('TestReconcile_TracingNormalization: created-by span attribute normalised', async () => {
        const { client, ns } = custom;
        const labelled = (name: string, createdBy?: string): SandboxObject => {
          const s = scriptedSandbox(ns, name);
          if (createdBy !== undefined) s.metadata.labels = { [Labels.CreatedBy]: createdBy };
          return s;
        };
        await Promise.all(
          [
            labelled('by-go', 'go-client'),
            labelled('by-script', 'my-script'),
            labelled('by-nobody'),
          ].map((s) => client.create(SANDBOXES, s)),
        );
        for (const name of ['by-go', 'by-script', 'by-nobody']) {
          await waitForPod(client, ns, name);
        }
        const spanOf = (name: string) =>
          eventually(() =>
            tracer.spans.find(
              (s) =>
                s.name === 'ReconcileSandbox' && s.attributes['sandbox.name'] === name && s.ended,
            ),
          );
        expect((await spanOf('by-go')).attributes).toEqual({
          'sandbox.name': 'by-go',
          'sandbox.namespace': ns,
          [Labels.CreatedBy]: 'go-client',
        });
        expect((await spanOf('by-script')).attributes[Labels.CreatedBy]).toBe('unknown');
        expect((await spanOf('by-nobody')).attributes).toEqual({
          'sandbox.name': 'by-nobody',
          'sandbox.namespace': ns,
        });
        // The Pod carries the same normalised value.
        const pod = await client.get<PodObject>(PODS, ns, 'by-script');
        expect(pod.metadata.labels?.[Labels.CreatedBy]).toBe('unknown');
      });

      it('TestReconcileCoalescesNodeNameStatusWrite: nodeName-only change not written until Ready', async () => {
        const { client, ns } = world;
        await client.create(SANDBOXES, scriptedSandbox(ns, 'coalesce'));
        await waitForPod(client, ns, 'coalesce');
        // PodScheduled True without a reason, as a binding leaves it: the bind changes nothing else.
        await setPodStatus(client, ns, 'coalesce', {
          phase: 'Pending',
          conditions: [{ type: 'PodScheduled', status: 'True' }],
        });
        await waitForCondition(client, ns, 'coalesce', 'PodScheduled', {
          status: 'True',
          reason: 'PodScheduled',
        });
        await bindPod(client, ns, 'coalesce', 'scripted-node-1');
        await eventually(async () => {
          const pod = await client.get<PodObject>(PODS, ns, 'coalesce');
          return pod.spec?.nodeName === 'scripted-node-1' ? pod : undefined;
        });
        const poked = await pokeAndSettle(world, 'coalesce');
        const unwritten = await getSandbox(client, ns, 'coalesce');
        expect(unwritten.metadata.resourceVersion).toBe(poked.metadata.resourceVersion);
        expect(unwritten.status?.nodeName).toBeUndefined();

        await markPodRunning(client, ns, 'coalesce', '10.4.0.1');
        const ready = await waitForCondition(client, ns, 'coalesce', 'Ready', { status: 'True' });
        expect(ready.status?.nodeName).toBe('scripted-node-1');
      });

      it('TestSandboxReconcile_ConditionsDoNotAccumulate: repeated passes keep one condition per type', async () => {
        const { client, ns } = world;
        const created = await client.create(SANDBOXES, scriptedSandbox(ns, 'steady'));
        const writes = watchSandbox(client, ns, 'steady', created.metadata.resourceVersion ?? '');
        try {
          await waitForPod(client, ns, 'steady');
          await markPodRunning(client, ns, 'steady', '10.4.0.2');
          await waitForCondition(client, ns, 'steady', 'Ready', { status: 'True' });
          for (let i = 0; i < 3; i++) await pokeAndSettle(world, 'steady');
          await client.patch(SANDBOXES, ns, 'steady', {
            type: 'merge',
            body: { spec: { operatingMode: 'Suspended' } },
          });
          await waitForCondition(client, ns, 'steady', 'Suspended', { status: 'True' });
          await client.patch(SANDBOXES, ns, 'steady', {
            type: 'merge',
            body: { spec: { operatingMode: 'Running' } },
          });
          await waitForCondition(client, ns, 'steady', 'Suspended', { status: 'False' });
          await pokeAndSettle(world, 'steady');
          const last = await getSandbox(client, ns, 'steady');
          expect([...conditionTypes(last)].sort()).toEqual(['PodScheduled', 'Ready', 'Suspended']);
          expect(writes.seen.length).toBeGreaterThan(5);
          for (const version of writes.seen) {
            const types = conditionTypes(version);
            expect(new Set(types).size, types.join(',')).toBe(types.length);
          }
        } finally {
          await writes.stop();
        }
      });

      it('Ready / Finished / Suspended / PodScheduled transitions: exact reasons and messages; lastTransitionTime moves only on a status flip', async () => {
        const { client, ns } = world;
        await client.create(SANDBOXES, scriptedSandbox(ns, 'walk'));
        await waitForPod(client, ns, 'walk');
        const pending = await waitForCondition(client, ns, 'walk', 'Ready', {
          status: 'False',
          reason: 'DependenciesNotReady',
          message: 'Pod exists with phase: Pending',
        });
        const suspendedSince = condition(pending, 'Suspended')?.lastTransitionTime;
        const notReadySince = condition(pending, 'Ready')?.lastTransitionTime;

        await nextSecond();
        await setPodStatus(client, ns, 'walk', {
          phase: 'Running',
          conditions: [
            { type: 'PodScheduled', status: 'True' },
            { type: 'Ready', status: 'False' },
          ],
        });
        const warming = await waitForCondition(client, ns, 'walk', 'Ready', {
          message: 'Pod is Running but not Ready',
        });
        expect(condition(warming, 'Ready')?.lastTransitionTime).toBe(notReadySince);
        expect(condition(warming, 'PodScheduled')).toMatchObject({
          status: 'True',
          reason: 'PodScheduled',
        });

        await nextSecond();
        await markPodRunning(client, ns, 'walk', '10.4.0.3');
        const ready = await waitForCondition(client, ns, 'walk', 'Ready', {
          status: 'True',
          reason: 'DependenciesReady',
          message: 'Pod is Ready',
        });
        const readySince = condition(ready, 'Ready')?.lastTransitionTime ?? '';
        expect(Date.parse(readySince)).toBeGreaterThan(Date.parse(notReadySince ?? ''));
        expect(condition(ready, 'Finished')).toBeUndefined();

        await nextSecond();
        await setPodStatus(client, ns, 'walk', {
          phase: 'Succeeded',
          conditions: [
            { type: 'PodScheduled', status: 'True' },
            { type: 'Ready', status: 'False', reason: 'PodCompleted' },
          ],
        });
        const done = await waitForCondition(client, ns, 'walk', 'Ready', {
          status: 'False',
          reason: 'PodSucceeded',
          message: 'Pod completed successfully',
        });
        expect(Date.parse(condition(done, 'Ready')?.lastTransitionTime ?? '')).toBeGreaterThan(
          Date.parse(readySince),
        );
        expect(condition(done, 'Finished')).toMatchObject({
          status: 'True',
          reason: 'PodSucceeded',
          message: 'Pod completed successfully',
        });

        // The finished Pod goes: a new one is made and Finished (present only while it
        // applies) is removed; Suspended never moved.
        await client.delete(PODS, ns, 'walk', { gracePeriodSeconds: 0 });
        const again = await waitForCondition(client, ns, 'walk', 'Ready', {
          message: 'Pod exists with phase: Pending',
        });
        expect(condition(again, 'Finished')).toBeUndefined();
        expect(condition(again, 'Suspended')).toMatchObject({
          status: 'False',
          reason: 'NotSuspended',
          lastTransitionTime: suspendedSince,
        });
        for (const c of again.status?.conditions ?? []) {
          expect(c.observedGeneration, c.type).toBe(again.metadata.generation);
        }
      });
    });
  });
}
