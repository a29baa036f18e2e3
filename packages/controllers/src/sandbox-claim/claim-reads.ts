// The claim reconciler's cache reads (the manager's shared informers) and the sandbox watch that
// feeds the warm queue (spec §15: enqueue when a Sandbox becomes adoptable, changes pool owner or
// node; a delete removes it; a pool delete drops its queue).
import { Labels } from '@agent-sandbox/api';
import { InvalidArgumentError } from '@agent-sandbox/kube';
import type { KubeObject } from '@agent-sandbox/kube-types';
import type { InformerSource } from '@agent-sandbox/runtime';
import {
  NETWORK_POLICIES,
  SANDBOX_CLAIMS,
  SANDBOX_TEMPLATES,
  SANDBOX_WARM_POOLS,
  type ClaimObject,
  type PoolObject,
  type SandboxObj,
  type TemplateObject,
  controlledByKind,
} from '../extensions/resources.ts';
import { SANDBOXES } from '../sandbox/child-writes.ts';
import { WarmSandboxQueue } from '../warm-queue/warm-queue.ts';

/** Sandboxes by the UID of the SandboxClaim that controls them. */
export const CLAIM_CONTROLLER_INDEX = 'sandboxclaim-controller-uid';

export class ClaimReads {
  readonly #informers: InformerSource;

  constructor(informers: InformerSource) {
    this.#informers = informers;
    try {
      informers.getInformer<SandboxObj>(SANDBOXES).addIndex(CLAIM_CONTROLLER_INDEX, (s) => {
        const ref = controlledByKind(s, 'SandboxClaim');
        return ref === undefined || ref.uid === '' ? [] : [ref.uid];
      });
    } catch (err: unknown) {
      if (!(err instanceof InvalidArgumentError)) throw err; // added already
    }
  }

  #get<T extends KubeObject>(
    ref: Parameters<InformerSource['getInformer']>[0],
    ns: string,
    name: string,
  ): T | undefined {
    return this.#informers.getInformer<T>(ref).cache.get(`${ns}/${name}`);
  }

  claim(ns: string, name: string): ClaimObject | undefined {
    return this.#get<ClaimObject>(SANDBOX_CLAIMS, ns, name);
  }
  sandbox(ns: string, name: string): SandboxObj | undefined {
    return this.#get<SandboxObj>(SANDBOXES, ns, name);
  }
  pool(ns: string, name: string): PoolObject | undefined {
    return this.#get<PoolObject>(SANDBOX_WARM_POOLS, ns, name);
  }
  template(ns: string, name: string): TemplateObject | undefined {
    return this.#get<TemplateObject>(SANDBOX_TEMPLATES, ns, name);
  }
  /** The cached Sandboxes in the claim's namespace whose controller is this claim (by UID). */
  controlledBy(claim: ClaimObject): SandboxObj[] {
    const uid = claim.metadata.uid ?? '';
    if (uid === '') return [];
    return this.#informers
      .getInformer<SandboxObj>(SANDBOXES)
      .cache.byIndex(CLAIM_CONTROLLER_INDEX, uid)
      .filter((s) => s.metadata.namespace === claim.metadata.namespace);
  }
  networkPolicy(ns: string, name: string): KubeObject | undefined {
    return this.#get<KubeObject>(NETWORK_POLICIES, ns, name);
  }
}

/** The pool a Sandbox is adoptable from: its controller ref, else any SandboxWarmPool owner. */
export function adoptablePool(s: SandboxObj): string | undefined {
  if (s.metadata.deletionTimestamp !== undefined) return undefined;
  const labels = s.metadata.labels ?? {};
  if (labels[Labels.WarmPoolSandbox] === undefined) return undefined;
  if (labels[Labels.SandboxTemplateRefHash] === undefined) return undefined;
  const refs = s.metadata.ownerReferences ?? [];
  const owner =
    refs.find((r) => r.controller === true && r.kind === 'SandboxWarmPool') ??
    refs.find((r) => r.kind === 'SandboxWarmPool');
  return owner?.name;
}

/** Feeds `queue` from the Sandbox informer and drops a deleted pool's queue. */
export function feedWarmQueue(informers: InformerSource, queue: WarmSandboxQueue): void {
  const enqueue = (old: SandboxObj | undefined, s: SandboxObj): void => {
    const pool = adoptablePool(s);
    if (pool === undefined) return;
    const node = s.status?.nodeName;
    const before = old === undefined ? undefined : adoptablePool(old);
    if (before === pool && old?.status?.nodeName === node) return;
    const ns = s.metadata.namespace ?? '';
    queue.add(WarmSandboxQueue.queueName(ns, pool), {
      namespace: ns,
      name: s.metadata.name ?? '',
      ...(node ? { nodeName: node } : {}),
    });
  };
  informers.getInformer<SandboxObj>(SANDBOXES).addHandlers({
    onAdd: (s) => enqueue(undefined, s),
    onUpdate: (old, s) => enqueue(old, s),
    onDelete: (s) => queue.removeEverywhere(s.metadata.namespace ?? '', s.metadata.name ?? ''),
  });
  informers.getInformer<PoolObject>(SANDBOX_WARM_POOLS).addHandlers({
    onDelete: (p) =>
      queue.removeQueue(
        WarmSandboxQueue.queueName(p.metadata.namespace ?? '', p.metadata.name ?? ''),
      ),
  });
}
