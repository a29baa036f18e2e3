// Spec §21.1 TestReconcilePod, the metadata half, end to end: what the controller puts on a Pod it
// creates, and how it keeps an existing Pod's labels and annotations in line with the Sandbox
// (system-reserved keys, extension labels from an extensions owner, created-by, removed keys).
// The adoption/refusal half and the suspended cases are in ownership.scenarios.ts.
import { Annotations, EXTENSIONS_GROUP, Labels, nameHash } from '@agent-sandbox/api';
import { PODS, type ResourceRef } from '@agent-sandbox/kube';
import type { KubeObject, OwnerReference } from '@agent-sandbox/kube-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestTarget } from '../../testing/target.ts';
import {
  eventually,
  getSandbox,
  openScenarioWorld,
  scriptedSandbox,
  waitForPod,
  type PodObject,
  type SandboxObject,
  type ScenarioWorld,
  objectWhere,
} from '../../testing/harness.ts';
import { SANDBOXES } from '../sandbox-reconciler.ts';

const WARM_POOLS: ResourceRef = {
  group: EXTENSIONS_GROUP,
  version: 'v1beta1',
  plural: 'sandboxwarmpools',
  kind: 'SandboxWarmPool',
  namespaced: true,
};
const CLAIMS: ResourceRef = {
  group: EXTENSIONS_GROUP,
  version: 'v1beta1',
  plural: 'sandboxclaims',
  kind: 'SandboxClaim',
  namespaced: true,
};

/**
 * A real SandboxWarmPool or SandboxClaim (no extensions controller runs) and a controller
 * reference to it: garbage collection keeps a Sandbox whose owner exists.
 */
export async function createExtensionsOwner(
  world: ScenarioWorld,
  kind: 'SandboxWarmPool' | 'SandboxClaim',
  name: string,
): Promise<OwnerReference> {
  const ref = kind === 'SandboxWarmPool' ? WARM_POOLS : CLAIMS;
  const spec =
    kind === 'SandboxWarmPool'
      ? { sandboxTemplateRef: { name: 'tpl' }, replicas: 0 }
      : { warmPoolRef: { name: 'pool' } };
  const owner: KubeObject = {
    apiVersion: `${EXTENSIONS_GROUP}/v1beta1`,
    kind,
    metadata: { name, namespace: world.ns },
  };
  const created = await world.client.create(ref, { ...owner, spec } as KubeObject);
  return {
    apiVersion: `${EXTENSIONS_GROUP}/v1beta1`,
    kind,
    name,
    uid: created.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** Polls the Pod until `check` holds; returns it. */
export function podWhere(
  world: ScenarioWorld,
  name: string,
  check: (pod: PodObject) => boolean,
): Promise<PodObject> {
  return objectWhere(world, PODS, name, check);
}

async function patchSandbox(
  world: ScenarioWorld,
  name: string,
  body: Record<string, unknown>,
): Promise<void> {
  await world.client.patch(SANDBOXES, world.ns, name, { type: 'merge', body });
}

function withLabels(
  sandbox: SandboxObject,
  labels: Record<string, string>,
  ownerReferences?: OwnerReference[],
): SandboxObject {
  sandbox.metadata.labels = labels;
  if (ownerReferences !== undefined) sandbox.metadata.ownerReferences = ownerReferences;
  return sandbox;
}

export function definePodScenarios(target: TestTarget): void {
  describe(`Sandbox Pod metadata scenarios (${target})`, () => {
    let world: ScenarioWorld;
    beforeAll(async () => {
      world = await openScenarioWorld(target);
    });
    afterAll(async () => {
      await world?.close();
    });

    describe.concurrent('TestReconcilePod', () => {
      it('TestReconcilePod: creates a new Pod with the tracking label, controller ref and propagated keys', async () => {
        const sandbox = scriptedSandbox(world.ns, 'fresh');
        sandbox.spec.podTemplate.metadata = {
          labels: { app: 'agent', tier: 'web' },
          annotations: { note: 'x' },
        };
        const created = await world.client.create(SANDBOXES, sandbox);
        const pod = await waitForPod(world.client, world.ns, 'fresh');
        expect(pod.metadata.labels).toEqual({
          app: 'agent',
          tier: 'web',
          [Labels.SandboxNameHash]: nameHash('fresh'),
        });
        expect(pod.metadata.annotations).toEqual({
          note: 'x',
          [Annotations.PropagatedLabels]: 'app,tier',
          [Annotations.PropagatedAnnotations]: 'note',
        });
        expect(pod.metadata.ownerReferences).toEqual([
          {
            apiVersion: 'agents.x-k8s.io/v1beta1',
            kind: 'Sandbox',
            name: 'fresh',
            uid: created.metadata.uid,
            controller: true,
            blockOwnerDeletion: true,
          },
        ]);
        const annotated = await eventually(async () => {
          const s = await getSandbox(world.client, world.ns, 'fresh');
          return s.metadata.annotations?.[Annotations.PodName] === undefined ? undefined : s;
        });
        expect(annotated.metadata.annotations?.[Annotations.PodName]).toBe('fresh');
      });

      it('TestReconcilePod: drops user-supplied system-reserved labels and annotations', async () => {
        const sandbox = scriptedSandbox(world.ns, 'reserved');
        sandbox.spec.podTemplate.metadata = {
          labels: {
            app: 'agent',
            'agents.x-k8s.io/sneaky': 'x',
            'extensions.agents.x-k8s.io/also': 'y',
            [Labels.SandboxNameHash]: 'forged',
          },
          annotations: {
            keep: 'v',
            'agents.x-k8s.io/sneaky': 'x',
            'extensions.agents.x-k8s.io/also': 'y',
            [Annotations.TraceContext]: '{}',
          },
        };
        await world.client.create(SANDBOXES, sandbox);
        const pod = await waitForPod(world.client, world.ns, 'reserved');
        expect(pod.metadata.labels).toEqual({
          app: 'agent',
          [Labels.SandboxNameHash]: nameHash('reserved'),
        });
        expect(pod.metadata.annotations).toEqual({
          keep: 'v',
          [Annotations.PropagatedLabels]: 'app',
          [Annotations.PropagatedAnnotations]: 'keep',
        });
      });

      it('TestReconcilePod: scrubs stale system keys recorded by older controllers', async () => {
        await world.client.create(SANDBOXES, scriptedSandbox(world.ns, 'scrub'));
        await waitForPod(world.client, world.ns, 'scrub');
        // What an older controller left behind: system keys listed as propagated.
        await world.client.patch(PODS, world.ns, 'scrub', {
          type: 'merge',
          body: {
            metadata: {
              labels: { 'agents.x-k8s.io/stale': 'x' },
              annotations: {
                'agents.x-k8s.io/stale-note': 'y',
                [Annotations.PropagatedLabels]: `agents.x-k8s.io/stale,${Labels.SandboxNameHash},app`,
                [Annotations.PropagatedAnnotations]: 'agents.x-k8s.io/stale-note',
              },
            },
          },
        });
        const pod = await podWhere(
          world,
          'scrub',
          (p) => p.metadata.labels?.['agents.x-k8s.io/stale'] === undefined,
        );
        expect(pod.metadata.labels).toEqual({
          app: 'agent',
          [Labels.SandboxNameHash]: nameHash('scrub'),
        });
        // The bookkeeping is rewritten even when it becomes empty (§11.5.1).
        expect(pod.metadata.annotations).toEqual({
          [Annotations.PropagatedLabels]: 'app',
          [Annotations.PropagatedAnnotations]: '',
        });
      });

      it('TestReconcilePod: system labels on the Sandbox metadata are not propagated; template-ref-hash only from an extensions owner', async () => {
        await world.client.create(
          SANDBOXES,
          withLabels(scriptedSandbox(world.ns, 'meta-labels'), {
            [Labels.SandboxTemplateRefHash]: 'abc123',
            [Labels.WarmPoolSandbox]: 'def456',
            team: 'x',
          }),
        );
        const pod = await waitForPod(world.client, world.ns, 'meta-labels');
        expect(pod.metadata.labels).toEqual({
          app: 'agent',
          [Labels.SandboxNameHash]: nameHash('meta-labels'),
        });
      });

      it('TestReconcilePod: warm-pool and template-ref-hash labels propagated side by side while owned by a SandboxWarmPool', async () => {
        const pool = await createExtensionsOwner(world, 'SandboxWarmPool', 'pool-a');
        await world.client.create(
          SANDBOXES,
          withLabels(
            scriptedSandbox(world.ns, 'pooled'),
            { [Labels.WarmPoolSandbox]: 'h-pool', [Labels.SandboxTemplateRefHash]: 'h-tpl' },
            [pool],
          ),
        );
        const pod = await waitForPod(world.client, world.ns, 'pooled');
        expect(pod.metadata.labels).toMatchObject({
          [Labels.WarmPoolSandbox]: 'h-pool',
          [Labels.SandboxTemplateRefHash]: 'h-tpl',
        });
      });

      it('TestReconcilePod: warm-pool label not propagated when owned by a SandboxClaim; template-ref-hash is', async () => {
        const claim = await createExtensionsOwner(world, 'SandboxClaim', 'claim-a');
        await world.client.create(
          SANDBOXES,
          withLabels(
            scriptedSandbox(world.ns, 'claimed'),
            { [Labels.WarmPoolSandbox]: 'h-pool', [Labels.SandboxTemplateRefHash]: 'h-tpl' },
            [claim],
          ),
        );
        const pod = await waitForPod(world.client, world.ns, 'claimed');
        expect(pod.metadata.labels?.[Labels.SandboxTemplateRefHash]).toBe('h-tpl');
        expect(pod.metadata.labels?.[Labels.WarmPoolSandbox]).toBeUndefined();
      });

      it('TestReconcilePod: extension labels added to an existing Pod, removed when absent or no longer extensions-owned', async () => {
        const labels = {
          [Labels.WarmPoolSandbox]: 'h-pool',
          [Labels.SandboxTemplateRefHash]: 'h-tpl',
        };
        await world.client.create(
          SANDBOXES,
          withLabels(scriptedSandbox(world.ns, 'later'), labels),
        );
        const before = await waitForPod(world.client, world.ns, 'later');
        expect(before.metadata.labels?.[Labels.WarmPoolSandbox]).toBeUndefined();

        const pool = await createExtensionsOwner(world, 'SandboxWarmPool', 'pool-b');
        await patchSandbox(world, 'later', { metadata: { ownerReferences: [pool] } });
        const added = await podWhere(
          world,
          'later',
          (p) => p.metadata.labels?.[Labels.WarmPoolSandbox] === 'h-pool',
        );
        expect(added.metadata.labels?.[Labels.SandboxTemplateRefHash]).toBe('h-tpl');
        expect(added.metadata.uid).toBe(before.metadata.uid);

        await patchSandbox(world, 'later', {
          metadata: { labels: { [Labels.SandboxTemplateRefHash]: null } },
        });
        const noRef = await podWhere(
          world,
          'later',
          (p) => p.metadata.labels?.[Labels.SandboxTemplateRefHash] === undefined,
        );
        expect(noRef.metadata.labels?.[Labels.WarmPoolSandbox]).toBe('h-pool');

        await patchSandbox(world, 'later', { metadata: { ownerReferences: null } });
        const released = await podWhere(
          world,
          'later',
          (p) => p.metadata.labels?.[Labels.WarmPoolSandbox] === undefined,
        );
        expect(released.metadata.labels).toEqual({
          app: 'agent',
          [Labels.SandboxNameHash]: nameHash('later'),
        });
      });

      it('TestReconcilePod: a label or annotation removed from the template is deleted from the Pod', async () => {
        const sandbox = scriptedSandbox(world.ns, 'pruned');
        sandbox.spec.podTemplate.metadata = {
          labels: { app: 'agent', tier: 'web' },
          annotations: { note: 'x', keep: 'y' },
        };
        await world.client.create(SANDBOXES, sandbox);
        const before = await waitForPod(world.client, world.ns, 'pruned');
        expect(before.metadata.labels?.['tier']).toBe('web');
        await patchSandbox(world, 'pruned', {
          spec: {
            podTemplate: { metadata: { labels: { tier: null }, annotations: { note: null } } },
          },
        });
        const pod = await podWhere(
          world,
          'pruned',
          (p) => p.metadata.labels?.['tier'] === undefined,
        );
        expect(pod.metadata.labels).toEqual({
          app: 'agent',
          [Labels.SandboxNameHash]: nameHash('pruned'),
        });
        expect(pod.metadata.annotations).toEqual({
          keep: 'y',
          [Annotations.PropagatedLabels]: 'app',
          [Annotations.PropagatedAnnotations]: 'keep',
        });
        expect(pod.metadata.uid).toBe(before.metadata.uid);
      });

      it('TestReconcilePod: created-by propagated and normalised, updated on the existing Pod, removed when the Sandbox lacks it', async () => {
        await world.client.create(
          SANDBOXES,
          withLabels(scriptedSandbox(world.ns, 'by-go'), { [Labels.CreatedBy]: 'go-client' }),
        );
        await world.client.create(
          SANDBOXES,
          withLabels(scriptedSandbox(world.ns, 'by-odd'), { [Labels.CreatedBy]: 'my-script' }),
        );
        const go = await waitForPod(world.client, world.ns, 'by-go');
        expect(go.metadata.labels?.[Labels.CreatedBy]).toBe('go-client');
        const odd = await waitForPod(world.client, world.ns, 'by-odd');
        expect(odd.metadata.labels?.[Labels.CreatedBy]).toBe('unknown');

        await patchSandbox(world, 'by-go', {
          metadata: { labels: { [Labels.CreatedBy]: 'python-client' } },
        });
        await podWhere(
          world,
          'by-go',
          (p) => p.metadata.labels?.[Labels.CreatedBy] === 'python-client',
        );
        await patchSandbox(world, 'by-go', { metadata: { labels: { [Labels.CreatedBy]: null } } });
        const removed = await podWhere(
          world,
          'by-go',
          (p) => p.metadata.labels?.[Labels.CreatedBy] === undefined,
        );
        expect(removed.metadata.uid).toBe(go.metadata.uid);
      });
    });
  });
}
