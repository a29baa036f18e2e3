// Builders and waits for the extension scenarios (templates, pools, claims), on either target.
import { Labels, nameHash, type v1beta1 } from '@agent-sandbox/api';
import type { ResourceRef } from '@agent-sandbox/kube';
import type { KubeObject } from '@agent-sandbox/kube-types';
import {
  SANDBOX_CLAIMS,
  SANDBOX_TEMPLATES,
  SANDBOX_WARM_POOLS,
  type ClaimObject,
  type PoolObject,
  type SandboxObj,
  type TemplateObject,
} from '../extensions/resources.ts';
import { SANDBOXES } from '../sandbox/child-writes.ts';
import { eventually, testPodTemplate } from './harness.ts';
import type { ScenarioWorld } from './scenario-world.ts';

type World = Pick<ScenarioWorld, 'client' | 'ns'>;

export function newTemplate(
  ns: string,
  name: string,
  spec: Partial<v1beta1.SandboxTemplateSpec> = {},
): TemplateObject {
  return {
    apiVersion: 'extensions.agents.x-k8s.io/v1beta1',
    kind: 'SandboxTemplate',
    metadata: { name, namespace: ns },
    spec: { podTemplate: testPodTemplate(), ...spec },
  };
}

export function newPool(
  ns: string,
  name: string,
  template: string,
  spec: Partial<v1beta1.SandboxWarmPoolSpec> = {},
): PoolObject {
  return {
    apiVersion: 'extensions.agents.x-k8s.io/v1beta1',
    kind: 'SandboxWarmPool',
    metadata: { name, namespace: ns },
    spec: { sandboxTemplateRef: { name: template }, ...spec },
  };
}

export function newClaim(
  ns: string,
  name: string,
  pool: string,
  spec: Partial<v1beta1.SandboxClaimSpec> = {},
): ClaimObject {
  return {
    apiVersion: 'extensions.agents.x-k8s.io/v1beta1',
    kind: 'SandboxClaim',
    metadata: { name, namespace: ns },
    spec: { warmPoolRef: { name: pool }, ...spec },
  };
}

export async function create<T extends KubeObject>(
  world: World,
  ref: ResourceRef,
  obj: T,
): Promise<T> {
  return world.client.create(ref, obj);
}

export const createTemplate = (w: World, t: TemplateObject): Promise<TemplateObject> =>
  create(w, SANDBOX_TEMPLATES, t);
export const createPool = (w: World, p: PoolObject): Promise<PoolObject> =>
  create(w, SANDBOX_WARM_POOLS, p);
export const createClaim = (w: World, c: ClaimObject): Promise<ClaimObject> =>
  create(w, SANDBOX_CLAIMS, c);

/** The pool's members as the API server lists them (membership label). */
export async function listMembers(world: World, pool: string): Promise<SandboxObj[]> {
  const list = await world.client.list<SandboxObj>(SANDBOXES, world.ns, {
    labelSelector: `${Labels.WarmPoolSandbox}=${nameHash(pool)}`,
  });
  return list.items;
}

export function isReady(obj: {
  status?: { conditions?: { type: string; status: string }[] };
}): boolean {
  return obj.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

/** An object's Ready condition, if it has one. */
export function readyCondition<C extends { type: string }>(obj: {
  status?: { conditions?: C[] };
}): C | undefined {
  return obj.status?.conditions?.find((c) => c.type === 'Ready');
}

/** Polls until `check` holds for the named object; returns it. */
export async function where<T extends KubeObject>(
  world: World,
  ref: ResourceRef,
  name: string,
  check: (obj: T) => boolean,
  timeoutMs?: number,
): Promise<T> {
  return eventually(async () => {
    const obj = await world.client.get<T>(ref, world.ns, name);
    return check(obj) ? obj : undefined;
  }, timeoutMs);
}

/** Waits until the pool reports `replicas` members, `ready` of them Ready. */
export async function poolSettled(
  world: World,
  name: string,
  replicas: number,
  ready = replicas,
  timeoutMs = 60_000,
): Promise<PoolObject> {
  return where<PoolObject>(
    world,
    SANDBOX_WARM_POOLS,
    name,
    (p) => (p.status?.replicas ?? 0) === replicas && (p.status?.readyReplicas ?? 0) === ready,
    timeoutMs,
  );
}

/** Waits until the pool lists exactly `count` members; returns them. */
export async function poolMembers(
  world: World,
  pool: string,
  count: number,
): Promise<SandboxObj[]> {
  return eventually(async () => {
    const m = await listMembers(world, pool);
    return m.length === count ? m : undefined;
  });
}

export interface Arrivals {
  /** When (test clock) each member's ADDED event arrived, by uid. */
  readonly byUid: Map<string, number>;
  /** Member names in the order of their ADDED events (the order an informer sees them). */
  readonly names: string[];
  /**
   * Waits until the watch has delivered every uid: a watch may trail a list (the real
   * kube-apiserver serves them from different places), so an object a list already shows can
   * still be on its way here.
   */
  delivered(uids: readonly string[]): Promise<number[]>;
  stop(): void;
}

/** Records when each member of `pool` first appeared on a watch, until stop(). */
export function watchArrivals(world: World, pool: string): Arrivals {
  const abort = new AbortController();
  const byUid = new Map<string, number>();
  const names: string[] = [];
  void (async () => {
    const events = world.client.watch<SandboxObj>(SANDBOXES, world.ns, {
      signal: abort.signal,
      labelSelector: `${Labels.WarmPoolSandbox}=${nameHash(pool)}`,
    });
    for await (const e of events) {
      if (e.type !== 'ADDED') continue;
      const uid = e.object.metadata.uid;
      if (uid === undefined || byUid.has(uid)) continue;
      byUid.set(uid, Date.now());
      names.push(e.object.metadata.name ?? '');
    }
  })().catch(() => undefined);
  const delivered = (uids: readonly string[]): Promise<number[]> =>
    eventually(async () => {
      const times = uids.map((u) => byUid.get(u));
      return times.every((t) => t !== undefined) ? (times as number[]) : undefined;
    }, 30_000);
  return { byUid, names, delivered, stop: () => abort.abort() };
}
