// The Pod IP cache (dataplane §2.4): an informer on Pods that carry the sandbox-name-hash label
// and have a pod IP, keeping only Ready Pods controlled by a Sandbox, keyed by the Sandbox UID
// and (for Pods no longer in a warm pool) by namespace/name.
import type { KubeObject } from '@agent-sandbox/kube-types';
import { Informer, PODS, type KubeClient } from '@agent-sandbox/kube';

export const SANDBOX_NAME_HASH_LABEL = 'agents.x-k8s.io/sandbox-name-hash';
export const WARM_POOL_LABEL = 'agents.x-k8s.io/warm-pool-sandbox';

interface PodLike extends KubeObject {
  status?: { podIP?: string; conditions?: { type: string; status: string }[] };
}

export interface CacheEntry {
  ip: string;
  name: string;
  namespace: string;
  uid: string;
}

/** Pure: the cache entry a Pod contributes, or undefined (not Ready, no IP, not a Sandbox's). */
export function entryOf(pod: PodLike): CacheEntry | undefined {
  const owner = pod.metadata.ownerReferences?.find(
    (r) =>
      r.controller === true &&
      r.kind === 'Sandbox' &&
      r.apiVersion.split('/')[0] === 'agents.x-k8s.io',
  );
  const ip = pod.status?.podIP;
  const ready = pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
  if (!owner || !ip || !ready) return undefined;
  return {
    ip,
    name: pod.metadata.name ?? '',
    namespace: pod.metadata.namespace ?? '',
    uid: owner.uid,
  };
}

export class PodIpCache {
  readonly informer: Informer<PodLike>;
  private readonly byUid = new Map<string, CacheEntry>();
  private readonly byName = new Map<string, string>();

  constructor(client: KubeClient, namespace?: string) {
    this.informer = new Informer<PodLike>({
      client,
      resource: PODS,
      ...(namespace ? { namespace } : {}),
      labelSelector: SANDBOX_NAME_HASH_LABEL,
      fieldSelector: 'status.podIP!=',
    });
    const upsert = (pod: PodLike) => {
      const old = [...this.byUid.values()].find(
        (e) => e.namespace === pod.metadata.namespace && e.name === pod.metadata.name,
      );
      if (old) this.remove(old.uid);
      const e = entryOf(pod);
      if (!e) return;
      this.byUid.set(e.uid, e);
      if (!pod.metadata.labels?.[WARM_POOL_LABEL])
        this.byName.set(`${e.namespace}/${e.name}`, e.uid);
    };
    this.informer.addHandlers({
      onAdd: upsert,
      onUpdate: (_o, n) => upsert(n),
      onDelete: (pod) => {
        const e = entryOf(pod);
        if (e) this.remove(e.uid);
        const uid = this.byName.get(`${pod.metadata.namespace}/${pod.metadata.name}`);
        if (uid) this.remove(uid);
      },
    });
  }

  private remove(uid: string): void {
    const e = this.byUid.get(uid);
    this.byUid.delete(uid);
    if (e && this.byName.get(`${e.namespace}/${e.name}`) === uid)
      this.byName.delete(`${e.namespace}/${e.name}`);
  }

  lookupUid(uid: string): CacheEntry | undefined {
    return this.byUid.get(uid);
  }

  lookupName(namespace: string, name: string): CacheEntry | undefined {
    const uid = this.byName.get(`${namespace}/${name}`);
    return uid ? this.byUid.get(uid) : undefined;
  }

  /** Evicts after a dead-host dial; by name only if the entry still holds `ip`. */
  evict(how: 'uid' | 'name', key: string, ip: string): boolean {
    if (how === 'uid') {
      if (!this.byUid.has(key)) return false;
      this.remove(key);
      return true;
    }
    const uid = this.byName.get(key);
    const e = uid ? this.byUid.get(uid) : undefined;
    if (!e || e.ip !== ip) return false;
    this.remove(e.uid);
    return true;
  }
}
