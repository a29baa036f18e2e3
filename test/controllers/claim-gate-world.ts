// The setup the gated claim tests share (claim-interleavings.ts, claim-conflicts.ts): per test a
// fresh namespace, a gate in front of the manager child process, a pool whose Pods only run when
// the test says so (the scripted scheduler), and small readers of what the manager wrote.
import { Labels, nameHash } from '@agent-sandbox/api';
import {
  SANDBOX_CLAIMS,
  SANDBOX_TEMPLATES,
  SANDBOX_WARM_POOLS,
  SANDBOXES,
} from '@agent-sandbox/controllers';
import { eventually, runningPodStatus } from '@agent-sandbox/controllers/testing';
import { PODS, type KubeClient } from '@agent-sandbox/kube';
import type { KubeObject, Pod } from '@agent-sandbox/kube-types';
import { afterEach, beforeEach, expect } from 'vitest';
import type { TestTarget } from '../support/target.ts';
import { startClaimGate, type ClaimGate } from './claim-gate.ts';
import type { Claim, Sandbox } from './claim-invariants.ts';
import { openClaimTarget, type ClaimTarget } from './claim-target.ts';
import { startManager, type ManagerProcess } from './manager-process.ts';

export const SCRIPTED_SCHEDULER = 'agent-sandbox-test-scripted';

/** A busybox Pod template for the scripted scheduler, gone a second after its deletion. */
export const SCRIPTED_POD_TEMPLATE = {
  spec: {
    schedulerName: SCRIPTED_SCHEDULER,
    terminationGracePeriodSeconds: 1,
    containers: [{ name: 'main', image: 'busybox' }],
  },
};
export const GROUP = 'extensions.agents.x-k8s.io/v1beta1';

export const controller = (o: KubeObject): string | undefined =>
  o.metadata.ownerReferences?.find((r) => r.controller === true)?.kind;

/** Template `tpl` (scripted scheduler) and pool `pool` of `replicas` (or `name`). */
export async function createPool(
  client: KubeClient,
  ns: string,
  replicas: number,
  name = 'pool',
): Promise<void> {
  if (name === 'pool') {
    await client.create(SANDBOX_TEMPLATES, {
      apiVersion: GROUP,
      kind: 'SandboxTemplate',
      metadata: { name: 'tpl', namespace: ns },
      spec: {
        podTemplate: SCRIPTED_POD_TEMPLATE,
      },
    } as KubeObject);
  }
  await client.create(SANDBOX_WARM_POOLS, {
    apiVersion: GROUP,
    kind: 'SandboxWarmPool',
    metadata: { name, namespace: ns },
    spec: { sandboxTemplateRef: { name: 'tpl' }, replicas },
  } as KubeObject);
}

export const claimObject = (ns: string, name: string, pool = 'pool'): KubeObject =>
  ({
    apiVersion: GROUP,
    kind: 'SandboxClaim',
    metadata: { name, namespace: ns },
    spec: { warmPoolRef: { name: pool } },
  }) as KubeObject;

export async function members(client: KubeClient, ns: string): Promise<Sandbox[]> {
  const list = await client.list<Sandbox>(SANDBOXES, ns, {
    labelSelector: `${Labels.WarmPoolSandbox}=${nameHash('pool')}`,
  });
  return list.items;
}

let nextIp = 10;

/** Reports the Pod of each named Sandbox Running and Ready once it exists (a kubelet's part). */
export async function runPods(client: KubeClient, ns: string, sandboxes: string[]): Promise<void> {
  for (const name of sandboxes) {
    await eventually(async () => {
      const pod = await client.get<Pod & KubeObject>(PODS, ns, name);
      if (pod.status?.phase === 'Running') return true;
      await client.patch(
        PODS,
        ns,
        name,
        { type: 'merge', body: { status: runningPodStatus(`10.244.9.${nextIp++ % 250}`) } },
        { subresource: 'status' },
      );
      return true;
    }, 60_000);
  }
}

export async function claimWhere(
  client: KubeClient,
  ns: string,
  name: string,
  check: (c: Claim) => boolean,
): Promise<Claim> {
  return eventually(async () => {
    const c = await client.get<Claim>(SANDBOX_CLAIMS, ns, name);
    return check(c) ? c : undefined;
  }, 60_000);
}

export const readyOn = (sandbox: string) => (c: Claim) =>
  c.status?.sandbox?.name === sandbox &&
  (c.status.conditions ?? []).some((x) => x.type === 'Ready' && x.status === 'True');

export interface GateWorld {
  readonly ct: ClaimTarget;
  readonly gate: ClaimGate;
  /** Starts `agent-sandbox controller --extensions` behind the gate. */
  start(flags?: string[]): Promise<ManagerProcess>;
  /** SIGKILLs the manager started last. */
  kill(): Promise<void>;
  /** The /metrics text of the manager started last. */
  scrape(): Promise<string>;
  /** A Ready pool of `n` behind a started manager; returns the members' names. */
  readyPool(n: number, flags?: string[]): Promise<string[]>;
  /** A metadata write by another writer (a fresh label value each time: a resourceVersion bump). */
  touch(resource: typeof SANDBOXES, name: string): Promise<unknown>;
  /** Status codes of the manager's `method` writes to `path`, from write number `from` on. */
  writesTo(path: RegExp, method: string, from: number): number[];
  /** The claim controls `chosen` and nothing else; the other first members are the pool's. */
  expectOnlyAdopted(chosen: string, firstMembers: string[]): Promise<void>;
}

/** Registers beforeEach/afterEach hooks; the returned world is valid inside a test. */
export function useGateWorld(target: TestTarget, prefix: string): GateWorld {
  let ct: ClaimTarget | undefined;
  let gate: ClaimGate | undefined;
  let touches = 0;
  const managers: ManagerProcess[] = [];
  beforeEach(async () => {
    ct = await openClaimTarget(target, prefix);
    gate = await startClaimGate(ct.managerConfig, ct.namespace, ct.dir);
  });
  afterEach(async () => {
    for (const m of managers.splice(0)) await m.kill();
    await gate?.close();
    await ct?.close();
  });
  const world: GateWorld = {
    get ct(): ClaimTarget {
      if (ct === undefined) throw new Error('the gate world is only open inside a test');
      return ct;
    },
    get gate(): ClaimGate {
      if (gate === undefined) throw new Error('the gate world is only open inside a test');
      return gate;
    },
    start: async (flags = []) => {
      const m = startManager(world.gate.kubeconfigPath, ['--extensions', ...flags]);
      managers.push(m);
      await m.serving;
      return m;
    },
    kill: async () => {
      await managers.at(-1)?.kill();
    },
    scrape: async () => {
      const last = managers.at(-1);
      if (last === undefined) throw new Error('no manager started');
      return (await fetch(`http://${await last.serving}/metrics`)).text();
    },
    readyPool: async (n, flags = []) => {
      const { client, namespace: ns } = world.ct;
      await createPool(client, ns, n);
      await world.start(flags);
      const names = await eventually(async () => {
        const m = await members(client, ns);
        return m.length === n ? m.map((s) => s.metadata.name ?? '') : undefined;
      });
      await runPods(client, ns, names);
      await eventually(async () => {
        const pool = await client.get<KubeObject & { status?: { readyReplicas?: number } }>(
          SANDBOX_WARM_POOLS,
          ns,
          'pool',
        );
        return pool.status?.readyReplicas === n ? true : undefined;
      }, 60_000);
      return names;
    },
    touch: (resource, name) =>
      world.ct.client.patch(resource, world.ct.namespace, name, {
        type: 'merge',
        body: { metadata: { labels: { 'test.example.com/touched': `t${++touches}` } } },
      }),
    writesTo: (path, method, from) =>
      world.gate.writes
        .slice(from)
        .filter((w) => w.method === method && path.test(w.path))
        .map((w) => w.status),
    expectOnlyAdopted: async (chosen, firstMembers) => {
      const all = (await world.ct.client.list<Sandbox>(SANDBOXES, world.ct.namespace)).items;
      const owned = all.filter((s) => controller(s) === 'SandboxClaim');
      expect(owned.map((s) => s.metadata.name)).toEqual([chosen]);
      for (const name of firstMembers.filter((n) => n !== chosen)) {
        const other = all.find((s) => s.metadata.name === name);
        expect(other !== undefined && controller(other)).toBe('SandboxWarmPool');
      }
    },
  };
  return world;
}
