// Spec §21.3 TestSandboxClaimAdoptionStrategy (NodeSpread) and
// TestSandboxClaimAdoptsCandidateThatBecomesNetworkReadyDuringGrace end to end. Pool members run
// on the scripted scheduler, so the test decides where each one lands: it binds their Pods to
// nodes of its own (kwok runs them on the cluster; the test plays the kubelet on the embedded
// server) and then checks which member each claim takes. The claim grace is lengthened so that a
// loaded machine cannot turn "networked during the grace" into a cold start.
import { Labels } from '@agent-sandbox/api';
import { NAMESPACES, PODS, type ResourceRef } from '@agent-sandbox/kube';
import type { KubeObject } from '@agent-sandbox/kube-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestTarget } from '../../testing/target.ts';
import { SANDBOX_CLAIMS, type ClaimObject, type SandboxObj } from '../../extensions/resources.ts';
import { SANDBOXES } from '../../sandbox/child-writes.ts';
import { SANDBOX_CLAIM_CONTROLLER_NAME } from '../sandbox-claim-controller.ts';
import {
  createClaim,
  createPool,
  createTemplate,
  isReady,
  newClaim,
  newPool,
  newTemplate,
  poolMembers,
  watchArrivals,
  where,
} from '../../testing/extensions.ts';
import {
  SCRIPTED_SCHEDULER,
  eventually,
  gone,
  openScenarioWorld,
  runningPodStatus,
  setPodStatus,
  testPodTemplate,
  type ScenarioWorld,
} from '../../testing/harness.ts';

const GRACE_MS = 30_000;
const NODES: ResourceRef = {
  group: '',
  version: 'v1',
  plural: 'nodes',
  kind: 'Node',
  namespaced: false,
};
/** The legacy `bindings` collection: both servers bind a Pod through it (kube's BindingREST). */
const BINDINGS: ResourceRef = {
  group: '',
  version: 'v1',
  plural: 'bindings',
  kind: 'Binding',
  namespaced: true,
};
/** Keeps kube-scheduler from placing other tests' Pods on this file's nodes. */
const TAINT_KEY = 'agent-sandbox.test/candidates';

/** A fake Node kwok manages (it marks it Ready and runs the Pods bound to it). */
function fakeNode(name: string): KubeObject {
  const resources = { cpu: '32', memory: '256Gi', pods: '110' };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      annotations: { 'kwok.x-k8s.io/node': 'fake', 'node.alpha.kubernetes.io/ttl': '0' },
      labels: { type: 'kwok-candidates', 'kubernetes.io/hostname': name },
    },
    spec: { taints: [{ key: TAINT_KEY, value: 'true', effect: 'NoSchedule' }] },
    status: {
      allocatable: resources,
      capacity: resources,
      addresses: [{ type: 'InternalIP', address: '127.0.0.1' }],
    },
  } as KubeObject;
}

export function defineClaimCandidateScenarios(target: TestTarget): void {
  describe(`SandboxClaim warm candidate choice (${target})`, () => {
    let world: ScenarioWorld;
    let nodes: string[] = [];
    beforeAll(async () => {
      world = await openScenarioWorld(target, {
        extensions: { claimWarmCandidateGraceMs: GRACE_MS },
      });
      await createTemplate(
        world,
        newTemplate(world.ns, 'tpl-scripted', {
          podTemplate: {
            ...testPodTemplate(),
            spec: {
              ...testPodTemplate().spec,
              schedulerName: SCRIPTED_SCHEDULER,
              tolerations: [{ key: TAINT_KEY, operator: 'Exists', effect: 'NoSchedule' }],
            },
          },
        }),
      );
      nodes = ['a', 'b', 'c'].map((n) => `${world.ns}-${n}`);
      for (const n of nodes) await world.client.create(NODES, fakeNode(n));
    });
    afterAll(async () => {
      if (world === undefined) return;
      // The namespace (and the Pods bound to the nodes) goes first, while kwok still manages
      // the nodes and can finish those Pods' deletion.
      await world.client.delete(NAMESPACES, undefined, world.ns).catch(() => undefined);
      await eventually(
        async () =>
          (await world.client.list(PODS, world.ns)).items.length === 0 ? true : undefined,
        60_000,
      ).catch(() => undefined);
      for (const n of nodes) await world.client.delete(NODES, undefined, n).catch(() => undefined);
      await world.close();
    });

    /** Binds the member's Pod to `node` and has it run there (kwok or the test as kubelet). */
    const runOn = async (sandbox: string, node: string, ip: string): Promise<void> => {
      await eventually(() => world.client.get(PODS, world.ns, sandbox));
      await world.client.create(BINDINGS, {
        apiVersion: 'v1',
        kind: 'Binding',
        metadata: { name: sandbox, namespace: world.ns },
        target: { apiVersion: 'v1', kind: 'Node', name: node },
      } as KubeObject);
      if (world.target === 'embedded') {
        await setPodStatus(world.client, world.ns, sandbox, runningPodStatus(ip));
      }
    };

    /** Waits until the controller's own cache shows the member Ready on `node`. */
    const cachedOn = (sandbox: string, node: string): Promise<true> => {
      const cache = world.controller.manager.getInformer<SandboxObj>(SANDBOXES).cache;
      return eventually(() => {
        const s = cache.get(`${world.ns}/${sandbox}`);
        return s !== undefined && isReady(s) && s.status?.nodeName === node ? true : undefined;
      }, 60_000);
    };

    /** Claim passes that ended in a requeue (the grace hold is one). */
    const heldPasses = async (): Promise<number> =>
      (await world.controller.manager.metrics.reconcileTotal.get()).values
        .filter((v) => v.labels.controller === SANDBOX_CLAIM_CONTROLLER_NAME)
        .filter((v) => v.labels.result === 'requeue_after')
        .reduce((sum, v) => sum + v.value, 0);

    const bound = (claim: string): Promise<ClaimObject> =>
      where<ClaimObject>(
        world,
        SANDBOX_CLAIMS,
        claim,
        (c) => c.status?.sandbox?.name !== undefined,
        60_000,
      );

    describe.concurrent('TestSandboxClaimAdoptionStrategy', () => {
      it('TestSandboxClaimAdoptionStrategy: NodeSpread — each claim takes a member from the node with the most warm members left (ties: queue order), not the oldest', async () => {
        const created = watchArrivals(world, 'spread');
        await createPool(world, newPool(world.ns, 'spread', 'tpl-scripted', { replicas: 6 }));
        const order = await eventually(() =>
          created.names.length >= 6 ? created.names : undefined,
        );
        created.stop();
        const [a, b, c] = nodes as [string, string, string];
        // Oldest first: c, b, a, a, a, b → 3 on a, 2 on b, 1 on c.
        const placement = [c, b, a, a, a, b];
        const nodeOf = new Map<string, string>();
        for (const [i, name] of order.slice(0, 6).entries()) {
          nodeOf.set(name, placement[i] ?? '');
          await runOn(name, placement[i] ?? '', `10.244.200.${i + 1}`);
        }
        for (const [name, node] of nodeOf) await cachedOn(name, node);
        const taken: string[] = [];
        const sandboxes = new Set<string>();
        for (let i = 0; i < 6; i++) {
          await createClaim(world, newClaim(world.ns, `spread-${i}`, 'spread'));
          const claim = await bound(`spread-${i}`);
          const sandbox = claim.status?.sandbox?.name ?? '';
          expect(nodeOf.has(sandbox), `claim ${i} took ${sandbox}, not a placed member`).toBe(true);
          sandboxes.add(sandbox);
          taken.push(nodeOf.get(sandbox) ?? '');
        }
        // FIFO would give c, b, a, a, a, b; NodeSpread keeps the rest as even as it can.
        expect(taken).toEqual([a, b, a, c, a, b]);
        expect(sandboxes.size).toBe(6);
      });
    });

    describe.concurrent('TestSandboxClaimAdoptsCandidateThatBecomesNetworkReadyDuringGrace', () => {
      it('TestSandboxClaimAdoptsCandidateThatBecomesNetworkReadyDuringGrace: a claim waiting on an IP-less member adopts it once it is networked, with no cold Sandbox', async () => {
        await createPool(world, newPool(world.ns, 'promote', 'tpl-scripted', { replicas: 1 }));
        const [member] = await poolMembers(world, 'promote', 1);
        const name = member?.metadata.name ?? '';
        await eventually(() => world.client.get(PODS, world.ns, name));
        const held = await heldPasses();
        const created = await createClaim(world, newClaim(world.ns, 'promoted', 'promote'));
        // The controller has taken the claim and holds it for the member (a requeue, no write).
        await eventually(async () => ((await heldPasses()) > held ? true : undefined));
        const waiting = await world.client.get<ClaimObject>(SANDBOX_CLAIMS, world.ns, 'promoted');
        expect(waiting.metadata.uid).toBe(created.metadata.uid);
        expect(waiting.status?.sandbox?.name).toBeUndefined();
        expect(await gone(world.client, SANDBOXES, world.ns, 'promoted')).toBe(true);
        await setPodStatus(world.client, world.ns, name, runningPodStatus('10.244.201.1'));
        const claim = await bound('promoted');
        expect(claim.status?.sandbox?.name).toBe(name);
        const adopted = await world.client.get<SandboxObj>(SANDBOXES, world.ns, name);
        expect(adopted.metadata.ownerReferences).toEqual([
          expect.objectContaining({ kind: 'SandboxClaim', uid: waiting.metadata.uid }),
        ]);
        expect(adopted.metadata.labels?.[Labels.LaunchType]).toBe('warm');
        expect(await gone(world.client, SANDBOXES, world.ns, 'promoted')).toBe(true);
      });
    });
  });
}
