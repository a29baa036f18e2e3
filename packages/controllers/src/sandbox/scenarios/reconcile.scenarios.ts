// Spec §21.1 TestReconcile (the non-expiry lines; expiry lives in expiry.scenarios.ts),
// TestPodScheduledConditionRemovedWithPod and TestResolvePodName, end to end on one target: children and status as the
// API server holds them after the real controller ran.
//
// Not producible against a real API server (kept as unit tests in conditions.test.ts):
// TestPodScheduledConditionUnknownWhenPodLookupFails and TestSuspendedConditionUnknownWhenPodLookupFails
// — the Pod lookup reads the informer cache, which cannot fail; the pod-step failures an API
// server can cause are shown in conditions.scenarios.ts.
import { Annotations, Labels, nameHash } from '@agent-sandbox/api';
import { PERSISTENT_VOLUME_CLAIMS, PODS, SERVICES } from '@agent-sandbox/kube';
import type { KubeObject, PersistentVolumeClaim, Pod, Service } from '@agent-sandbox/kube-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestTarget } from '../../testing/target.ts';
import {
  condition,
  gone,
  markPodRunning,
  newSandbox,
  openScenarioWorld,
  pokeAndSettle,
  scriptedPod,
  scriptedSandbox,
  setPodStatus,
  waitForCondition,
  waitForPod,
  eventually,
  getSandbox,
  type ScenarioWorld,
} from '../../testing/harness.ts';
import { SANDBOXES } from '../sandbox-reconciler.ts';

type PodObject = Pod & KubeObject;

export function defineReconcileScenarios(target: TestTarget): void {
  describe(`Sandbox reconcile §11 (${target})`, () => {
    let world: ScenarioWorld;
    beforeAll(async () => {
      world = await openScenarioWorld(target);
    });
    afterAll(async () => {
      await world?.close();
    });

    describe.concurrent('TestReconcile', () => {
      it('TestReconcile: minimal spec → Pod (tracking label, controller ref), no Service, status selector, conditions as in §8.1', async () => {
        const { client, ns } = world;
        const created = await client.create(SANDBOXES, scriptedSandbox(ns, 'minimal'));
        const pod = await waitForPod(client, ns, 'minimal');
        expect(pod.metadata.labels?.[Labels.SandboxNameHash]).toBe(nameHash('minimal'));
        expect(pod.metadata.ownerReferences).toEqual([
          {
            apiVersion: 'agents.x-k8s.io/v1beta1',
            kind: 'Sandbox',
            name: 'minimal',
            uid: created.metadata.uid,
            controller: true,
            blockOwnerDeletion: true,
          },
        ]);
        // The API server defaults a new Pod's phase to Pending.
        const s = await waitForCondition(client, ns, 'minimal', 'Ready', {
          status: 'False',
          reason: 'DependenciesNotReady',
          message: 'Pod exists with phase: Pending',
        });
        expect(s.status?.selector).toBe(`${Labels.SandboxNameHash}=${nameHash('minimal')}`);
        expect(s.status?.service).toBeUndefined();
        expect(s.status?.serviceFQDN).toBeUndefined();
        expect(s.status?.podIPs).toBeUndefined();
        expect(
          s.status?.conditions?.map(({ type, status, reason }) => [type, status, reason]),
        ).toEqual([
          ['Suspended', 'False', 'NotSuspended'],
          ['PodScheduled', 'Unknown', 'PodSchedulingUnknown'],
          ['Ready', 'False', 'DependenciesNotReady'],
        ]);
        await pokeAndSettle(world, 'minimal');
        expect(await gone(client, SERVICES, ns, 'minimal')).toBe(true);
      });

      it('TestReconcile: service: true → headless Service + status service/FQDN <n>.<ns>.svc.cluster.local, "; Service Exists"', async () => {
        const { client, ns } = world;
        const created = await client.create(
          SANDBOXES,
          scriptedSandbox(ns, 'svc', { service: true }),
        );
        const service = await eventually(() =>
          client.get<Service & KubeObject>(SERVICES, ns, 'svc'),
        );
        expect(service.spec?.clusterIP).toBe('None');
        expect(service.spec?.selector).toEqual({ [Labels.SandboxNameHash]: nameHash('svc') });
        expect(service.metadata.ownerReferences?.[0]?.uid).toBe(created.metadata.uid);
        const s = await waitForCondition(client, ns, 'svc', 'Ready', {
          message: 'Pod exists with phase: Pending; Service Exists',
        });
        expect(s.status?.service).toBe('svc');
        expect(s.status?.serviceFQDN).toBe(`svc.${ns}.svc.cluster.local`);
      });

      it('TestReconcile: PVC + Pod + Service created; PVC name <vct>-<sandbox>', async () => {
        const { client, ns } = world;
        const created = await client.create(
          SANDBOXES,
          scriptedSandbox(ns, 'disk', {
            service: true,
            volumeClaimTemplates: [
              {
                metadata: { name: 'work' },
                spec: {
                  accessModes: ['ReadWriteOnce'],
                  resources: { requests: { storage: '1Gi' } },
                },
              },
            ],
          }),
        );
        const pvc = await eventually(() =>
          client.get<PersistentVolumeClaim & KubeObject>(PERSISTENT_VOLUME_CLAIMS, ns, 'work-disk'),
        );
        expect(pvc.metadata.ownerReferences?.[0]?.uid).toBe(created.metadata.uid);
        expect(pvc.metadata.labels?.[Labels.SandboxNameHash]).toBe(nameHash('disk'));
        const pod = await waitForPod(client, ns, 'disk');
        expect(pod.spec?.volumes).toContainEqual({
          name: 'work',
          persistentVolumeClaim: { claimName: 'work-disk' },
        });
        await eventually(() => client.get(SERVICES, ns, 'disk'));
      });

      it('TestReconcile: existing pod propagates podIPs', async () => {
        const { client, ns } = world;
        await client.create(SANDBOXES, scriptedSandbox(ns, 'ips'));
        await waitForPod(client, ns, 'ips');
        await setPodStatus(client, ns, 'ips', {
          phase: 'Running',
          podIP: '10.1.2.3',
          podIPs: [{ ip: '10.1.2.3' }, { ip: 'fd00::3' }],
        });
        const s = await eventually(async () => {
          const sandbox = await getSandbox(client, ns, 'ips');
          return sandbox.status?.podIPs !== undefined ? sandbox : undefined;
        });
        expect(s.status?.podIPs).toEqual(['10.1.2.3', 'fd00::3']);
      });

      it('TestReconcile: existing pod with legacy tracking label (no adoptable label) is adopted and IPs propagate', async () => {
        const { client, ns } = world;
        await client.create(
          PODS,
          scriptedPod(ns, 'legacy', { labels: { [Labels.SandboxNameHash]: nameHash('legacy') } }),
        );
        await setPodStatus(client, ns, 'legacy', {
          phase: 'Running',
          podIP: '10.1.2.4',
          podIPs: [{ ip: '10.1.2.4' }],
        });
        const created = await client.create(SANDBOXES, scriptedSandbox(ns, 'legacy'));
        const adopted = await eventually(async () => {
          const pod = await client.get<PodObject>(PODS, ns, 'legacy');
          return pod.metadata.ownerReferences?.[0]?.uid === created.metadata.uid ? pod : undefined;
        });
        expect(adopted.metadata.ownerReferences?.[0]?.controller).toBe(true);
        const s = await eventually(async () => {
          const sandbox = await getSandbox(client, ns, 'legacy');
          return sandbox.status?.podIPs !== undefined ? sandbox : undefined;
        });
        expect(s.status?.podIPs).toEqual(['10.1.2.4']);
      });

      it('TestReconcile: existing ready pod → Ready True without Service by default', async () => {
        const { client, ns } = world;
        await client.create(
          PODS,
          scriptedPod(ns, 'ready', { labels: { [Labels.SandboxNameHash]: nameHash('ready') } }),
        );
        await markPodRunning(client, ns, 'ready', '10.1.2.5');
        await client.create(SANDBOXES, scriptedSandbox(ns, 'ready'));
        const s = await waitForCondition(client, ns, 'ready', 'Ready', {
          status: 'True',
          reason: 'DependenciesReady',
          message: 'Pod is Ready',
        });
        expect(s.status?.podIPs).toEqual(['10.1.2.5']);
        expect(s.status?.service).toBeUndefined();
        expect(await gone(client, SERVICES, ns, 'ready')).toBe(true);
      });

      it('TestReconcile: suspend with no pod → PodTerminated, and no Pod is created', async () => {
        const { client, ns } = world;
        await client.create(SANDBOXES, scriptedSandbox(ns, 'idle', { operatingMode: 'Suspended' }));
        const s = await waitForCondition(client, ns, 'idle', 'Suspended', {
          status: 'True',
          reason: 'PodTerminated',
          message: 'Pod has been terminated. Sandbox is suspended',
        });
        expect(condition(s, 'Ready')).toMatchObject({
          reason: 'SandboxSuspended',
          message: 'Sandbox is suspended',
        });
        await pokeAndSettle(world, 'idle');
        expect(await gone(client, PODS, ns, 'idle')).toBe(true);
      });

      it('TestPodScheduledConditionRemovedWithPod', async () => {
        const { client, ns } = world;
        await client.create(SANDBOXES, scriptedSandbox(ns, 'sched'));
        await waitForPod(client, ns, 'sched');
        await setPodStatus(client, ns, 'sched', {
          phase: 'Pending',
          conditions: [{ type: 'PodScheduled', status: 'True', reason: 'Scheduled' }],
        });
        await waitForCondition(client, ns, 'sched', 'PodScheduled', {
          status: 'True',
          reason: 'Scheduled',
        });
        await client.patch(SANDBOXES, ns, 'sched', {
          type: 'merge',
          body: { spec: { operatingMode: 'Suspended' } },
        });
        const s = await waitForCondition(client, ns, 'sched', 'Suspended', {
          reason: 'PodTerminated',
        });
        expect(condition(s, 'PodScheduled')).toBeUndefined();
        expect(await gone(client, PODS, ns, 'sched')).toBe(true);
      });

      // Real scheduling: kube-scheduler binds the Pod to a kwok node and kwok runs it.
      it.runIf(target === 'cluster')(
        'TestReconcile: minimal spec with real scheduling → Ready True, nodeName and podIPs from kwok',
        async () => {
          const { client, ns } = world;
          await client.create(SANDBOXES, newSandbox(ns, 'real', { service: true }));
          const s = await waitForCondition(
            client,
            ns,
            'real',
            'Ready',
            {
              status: 'True',
              reason: 'DependenciesReady',
              message: 'Pod is Ready; Service Exists',
            },
            90_000,
          );
          expect(s.status?.nodeName).toMatch(/^kwok-node-/);
          expect(s.status?.podIPs?.[0]).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
          expect(condition(s, 'PodScheduled')?.status).toBe('True');
          expect(condition(s, 'PodScheduled')?.reason).not.toBe('');
        },
      );
    });

    describe.concurrent('TestResolvePodName', () => {
      it('TestResolvePodName: no annotations / other annotations / empty value → the sandbox name', async () => {
        const { client, ns } = world;
        const plain = scriptedSandbox(ns, 'plain');
        const other = scriptedSandbox(ns, 'other');
        other.metadata.annotations = { 'example.com/note': 'hello' };
        const empty = scriptedSandbox(ns, 'empty');
        empty.metadata.annotations = { [Annotations.PodName]: '' };
        await Promise.all([plain, other, empty].map((s) => client.create(SANDBOXES, s)));
        for (const name of ['plain', 'other', 'empty']) {
          const pod = await waitForPod(client, ns, name);
          expect(pod.metadata.ownerReferences?.[0]?.name).toBe(name);
        }
        const annotated = await eventually(async () => {
          const s = await getSandbox(client, ns, 'other');
          return s.metadata.annotations?.[Annotations.PodName] !== undefined ? s : undefined;
        });
        expect(annotated.metadata.annotations).toMatchObject({
          'example.com/note': 'hello',
          [Annotations.PodName]: 'other',
        });
      });

      it('TestResolvePodName: the pod-name annotation → its value', async () => {
        const { client, ns } = world;
        await client.create(
          PODS,
          scriptedPod(ns, 'warm-pod-1', { labels: { [Labels.Adoptable]: 'true' } }),
        );
        const sandbox = scriptedSandbox(ns, 'claimed');
        sandbox.metadata.annotations = { [Annotations.PodName]: 'warm-pod-1' };
        const created = await client.create(SANDBOXES, sandbox);
        const adopted = await eventually(async () => {
          const pod = await client.get<Pod & KubeObject>(PODS, ns, 'warm-pod-1');
          return pod.metadata.ownerReferences?.[0]?.uid === created.metadata.uid ? pod : undefined;
        });
        expect(adopted.metadata.labels?.[Labels.SandboxNameHash]).toBe(nameHash('claimed'));
        await pokeAndSettle(world, 'claimed');
        expect(await gone(client, PODS, ns, 'claimed')).toBe(true);
      });
    });
  });
}
