// Spec §21.1 ownership scenarios end to end: which existing Pods a Sandbox adopts (adoptable label,
// legacy tracking label, the pod-name annotation), which it refuses (foreign controller, no
// authorisation), that the owner UID and not the label decides ownership, and the fail-closed
// MultiplePods path. Pods "of another controller" are owned by a real ConfigMap.
import { Annotations, Labels, SandboxReason, nameHash } from '@agent-sandbox/api';
import { EVENTS, PODS, SERVICES } from '@agent-sandbox/kube';
import type { Event, KubeObject, Service } from '@agent-sandbox/kube-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestTarget } from '../../testing/target.ts';
import {
  createForeignOwner,
  eventually,
  getSandbox,
  gone,
  openScenarioWorld,
  pokeAndSettle,
  sandboxControllerRef,
  scriptedPod,
  scriptedSandbox,
  setPodStatus,
  waitForCondition,
  waitForPod,
  watchSandbox,
  type PodObject,
  type ScenarioWorld,
} from '../../testing/harness.ts';
import { SANDBOXES } from '../sandbox-reconciler.ts';
import { podWhere } from './pod.scenarios.ts';

const NOT_ADOPTABLE = (kind: string, name: string): string =>
  `cannot adopt unowned ${kind} "${name}": missing required pool authorization label ("${Labels.Adoptable}") or sandbox tracking label ("${Labels.SandboxNameHash}")`;

const isOwnedBy = (pod: PodObject, uid: string | undefined): boolean =>
  pod.metadata.ownerReferences?.some((r) => r.controller === true && r.uid === uid) ?? false;

async function podNames(world: ScenarioWorld, sandboxName: string): Promise<string[]> {
  const pods = await world.client.list<PodObject>(PODS, world.ns, {
    labelSelector: `${Labels.SandboxNameHash}=${nameHash(sandboxName)}`,
  });
  return pods.items.map((p) => p.metadata.name ?? '').sort();
}

async function multiplePodsEvents(world: ScenarioWorld): Promise<Event[]> {
  const events = await world.client.list<Event & KubeObject>(EVENTS, world.ns);
  return events.items.filter((e) => e.reason === 'MultiplePods');
}

export function defineOwnershipScenarios(target: TestTarget): void {
  describe(`Sandbox ownership scenarios (${target})`, () => {
    let world: ScenarioWorld;
    beforeAll(async () => {
      world = await openScenarioWorld(target);
    });
    afterAll(async () => {
      await world?.close();
    });

    describe.concurrent('adoption and refusal', () => {
      it('TestReconcilePod: an existing adoptable Pod gets the tracking label and the controller ref', async () => {
        const pre = await world.client.create(
          PODS,
          scriptedPod(world.ns, 'adopt-me', { labels: { [Labels.Adoptable]: 'true' } }),
        );
        const sandbox = await world.client.create(SANDBOXES, scriptedSandbox(world.ns, 'adopt-me'));
        const pod = await podWhere(world, 'adopt-me', (p) => isOwnedBy(p, sandbox.metadata.uid));
        expect(pod.metadata.uid).toBe(pre.metadata.uid);
        expect(pod.metadata.ownerReferences).toEqual([sandboxControllerRef(sandbox)]);
        expect(pod.metadata.labels).toMatchObject({
          app: 'agent',
          [Labels.SandboxNameHash]: nameHash('adopt-me'),
        });
      });

      it('TestReconcilePod: adoption persists the owner ref even when the labels already match', async () => {
        const pre = await world.client.create(
          PODS,
          scriptedPod(world.ns, 'matching', {
            labels: { app: 'agent', [Labels.SandboxNameHash]: nameHash('matching') },
            annotations: { [Annotations.PropagatedLabels]: 'app' },
          }),
        );
        const sandbox = await world.client.create(SANDBOXES, scriptedSandbox(world.ns, 'matching'));
        const pod = await podWhere(world, 'matching', (p) => isOwnedBy(p, sandbox.metadata.uid));
        expect(pod.metadata.uid).toBe(pre.metadata.uid);
      });

      it('TestReconcilePod: adopts an unowned Pod carrying the legacy tracking label; its IPs propagate', async () => {
        await world.client.create(
          PODS,
          scriptedPod(world.ns, 'legacy', {
            labels: { [Labels.SandboxNameHash]: nameHash('legacy') },
          }),
        );
        const sandbox = await world.client.create(SANDBOXES, scriptedSandbox(world.ns, 'legacy'));
        await podWhere(world, 'legacy', (p) => isOwnedBy(p, sandbox.metadata.uid));
        await setPodStatus(world.client, world.ns, 'legacy', {
          phase: 'Running',
          podIP: '10.1.2.3',
          podIPs: [{ ip: '10.1.2.3' }],
        });
        const s = await eventually(async () => {
          const got = await getSandbox(world.client, world.ns, 'legacy');
          return got.status?.podIPs?.length ? got : undefined;
        });
        expect(s.status?.podIPs).toEqual(['10.1.2.3']);
      });

      it('TestReconcilePod: an unowned Pod without the adoptable or tracking label is refused and left alone', async () => {
        const pre = await world.client.create(
          PODS,
          scriptedPod(world.ns, 'plain', { labels: { app: 'other' } }),
        );
        await world.client.create(SANDBOXES, scriptedSandbox(world.ns, 'plain'));
        await waitForCondition(world.client, world.ns, 'plain', 'Ready', {
          status: 'False',
          reason: SandboxReason.ReconcilerError,
          message: `Error seen: ${NOT_ADOPTABLE('pod', 'plain')}`,
        });
        await pokeAndSettle(world, 'plain');
        const after = await world.client.get<PodObject>(PODS, world.ns, 'plain');
        expect(after.metadata.resourceVersion).toBe(pre.metadata.resourceVersion);
        expect(after.metadata.ownerReferences).toBeUndefined();
        expect(await podNames(world, 'plain')).toEqual([]);
      });

      it('TestReconcilePod: the Pod named by the pod-name annotation is adopted (label and owner ref)', async () => {
        await world.client.create(
          PODS,
          scriptedPod(world.ns, 'warm-1', { labels: { [Labels.Adoptable]: 'true' } }),
        );
        const sandbox = scriptedSandbox(world.ns, 'by-annotation');
        sandbox.metadata.annotations = { [Annotations.PodName]: 'warm-1' };
        const created = await world.client.create(SANDBOXES, sandbox);
        const pod = await podWhere(world, 'warm-1', (p) => isOwnedBy(p, created.metadata.uid));
        expect(pod.metadata.labels?.[Labels.SandboxNameHash]).toBe(nameHash('by-annotation'));
        const settled = await pokeAndSettle(world, 'by-annotation');
        expect(settled.metadata.annotations?.[Annotations.PodName]).toBe('warm-1');
        expect(await podNames(world, 'by-annotation')).toEqual(['warm-1']);
      });

      it('TestReconcilePod: a foreign-owned annotated Pod is refused: not modified, not deleted; the annotation is dropped', async () => {
        const owner = await createForeignOwner(world.client, world.ns, 'other-ctrl');
        const pre = await world.client.create(
          PODS,
          scriptedPod(world.ns, 'foreign-1', {
            labels: { [Labels.Adoptable]: 'true' },
            ownerReferences: [owner],
          }),
        );
        const sandbox = scriptedSandbox(world.ns, 'wants-foreign');
        sandbox.metadata.annotations = { [Annotations.PodName]: 'foreign-1' };
        const created = await world.client.create(SANDBOXES, sandbox);
        const writes = watchSandbox(
          world.client,
          world.ns,
          'wants-foreign',
          created.metadata.resourceVersion ?? '0',
        );
        // The refusal is written once; without the annotation the Pod name then falls back to
        // the Sandbox name, and the next pass makes a Pod of its own.
        const refusal = `Error seen: pod "foreign-1" is owned by ConfigMap/other-ctrl (UID: ${owner.uid}), not by sandbox "wants-foreign"`;
        try {
          await eventually(() =>
            writes.seen.some(
              (v) => v.status?.conditions?.find((c) => c.type === 'Ready')?.message === refusal,
            )
              ? true
              : undefined,
          );
        } finally {
          await writes.stop();
        }
        await waitForPod(world.client, world.ns, 'wants-foreign');
        const s = await eventually(async () => {
          const got = await getSandbox(world.client, world.ns, 'wants-foreign');
          return got.metadata.annotations?.[Annotations.PodName] === 'wants-foreign'
            ? got
            : undefined;
        });
        expect(s.metadata.annotations?.[Annotations.PodName]).toBe('wants-foreign');
        const foreign = await world.client.get<PodObject>(PODS, world.ns, 'foreign-1');
        expect(foreign.metadata.resourceVersion).toBe(pre.metadata.resourceVersion);
        expect(foreign.metadata.deletionTimestamp).toBeUndefined();
      });
    });

    describe.concurrent('TestCheckOwnership / TestSandboxOwnedPodsRequiresOwnerUID', () => {
      it('TestCheckOwnership: an unowned Pod and a foreign-owned Service are both refused, the errors joined', async () => {
        const owner = await createForeignOwner(world.client, world.ns, 'svc-owner');
        await world.client.create(PODS, scriptedPod(world.ns, 'mixed'));
        const service: Service & KubeObject = {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: 'mixed', namespace: world.ns, ownerReferences: [owner] },
          spec: { clusterIP: 'None', selector: { app: 'other' } },
        };
        await world.client.create(SERVICES, service);
        await world.client.create(SANDBOXES, scriptedSandbox(world.ns, 'mixed', { service: true }));
        await waitForCondition(world.client, world.ns, 'mixed', 'Ready', {
          status: 'False',
          reason: SandboxReason.ReconcilerError,
          message:
            `Error seen: ${NOT_ADOPTABLE('pod', 'mixed')}\n` +
            `service "mixed" is owned by ConfigMap/svc-owner (UID: ${owner.uid}), not by sandbox "mixed"`,
        });
      });

      it('TestSandboxOwnedPodsRequiresOwnerUID: the tracking label alone does not make a Pod owned', async () => {
        await world.client.create(SANDBOXES, scriptedSandbox(world.ns, 'uid-only'));
        await waitForPod(world.client, world.ns, 'uid-only');
        const lookalike = await world.client.create(
          PODS,
          scriptedPod(world.ns, 'uid-only-lookalike', {
            labels: { [Labels.SandboxNameHash]: nameHash('uid-only') },
          }),
        );
        await pokeAndSettle(world, 'uid-only');
        const s = await getSandbox(world.client, world.ns, 'uid-only');
        expect(s.status?.conditions?.find((c) => c.type === 'Ready')?.reason).toBe(
          SandboxReason.DependenciesNotReady,
        );
        const after = await world.client.get<PodObject>(PODS, world.ns, 'uid-only-lookalike');
        expect(after.metadata.resourceVersion).toBe(lookalike.metadata.resourceVersion);
        expect(after.metadata.ownerReferences).toBeUndefined();
      });
    });

    describe('TestReconcilePodFailsClosedForMultipleOwnedPods / TestReconcileChildResourcesSurfacesMultipleOwnedPods', () => {
      // Its own controller, so its error counter sees this Sandbox alone.
      let own: ScenarioWorld;
      beforeAll(async () => {
        own = await openScenarioWorld(target);
      });
      afterAll(async () => {
        await own?.close();
      });

      it('TestReconcilePodFailsClosedForMultipleOwnedPods: no create, no delete, MultiplePods condition and event, no returned error, Service left alone', async () => {
        const sandbox = await own.client.create(SANDBOXES, scriptedSandbox(own.ns, 'dup'));
        const first = await waitForPod(own.client, own.ns, 'dup');
        await own.client.create(
          PODS,
          scriptedPod(own.ns, 'dup-extra', {
            labels: { [Labels.SandboxNameHash]: nameHash('dup') },
            ownerReferences: [sandboxControllerRef(sandbox)],
          }),
        );
        await waitForCondition(own.client, own.ns, 'dup', 'Ready', {
          status: 'False',
          reason: SandboxReason.MultiplePods,
          message:
            'multiple Pods (2) are controlled by this Sandbox; refusing to choose or create a Pod',
        });
        // Ambiguous Pod mapping: the Service step is skipped even once it is required.
        await own.client.patch(SANDBOXES, own.ns, 'dup', {
          type: 'merge',
          body: { spec: { service: true } },
        });
        await pokeAndSettle(own, 'dup');
        expect(await gone(own.client, SERVICES, own.ns, 'dup')).toBe(true);
        const pods = await own.client.list<PodObject>(PODS, own.ns);
        expect(pods.items.map((p) => p.metadata.name).sort()).toEqual(['dup', 'dup-extra']);
        expect(pods.items.every((p) => p.metadata.deletionTimestamp === undefined)).toBe(true);
        expect(pods.items.find((p) => p.metadata.name === 'dup')?.metadata.uid).toBe(
          first.metadata.uid,
        );
        const multiple = await multiplePodsEvents(own);
        expect(multiple.length).toBeGreaterThan(0);
        expect(multiple[0]).toMatchObject({
          type: 'Warning',
          action: 'Reconciling',
          message:
            'multiple Pods (2) are controlled by this Sandbox; refusing to choose or create a Pod',
          involvedObject: { kind: 'Sandbox', name: 'dup', uid: sandbox.metadata.uid },
        });
        // Suppressed once Ready says MultiplePods: another pass records no further event. (Before
        // the status write reaches the cache a queued pass may record a duplicate, as upstream's
        // would; client-go's recorder folds those into one Event's count, ours creates two.)
        await pokeAndSettle(own, 'dup');
        expect(await multiplePodsEvents(own)).toHaveLength(multiple.length);
        const errors = await own.controller.manager.metrics.reconcileErrors.get();
        expect(errors.values.reduce((sum, v) => sum + v.value, 0)).toBe(0);
      });
    });
  });
}
