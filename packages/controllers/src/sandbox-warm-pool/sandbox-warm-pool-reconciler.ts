// The SandboxWarmPool reconciler (spec §13): the I/O around planPool. It lists members through
// the Sandbox cache's membership index, applies the expectations gate to creates and excess
// deletes, writes in slow-start batches (at most --sandbox-warm-pool-max-batch-size per pass),
// and merge-patches `status` when it changed and the pass had no error.
import { Annotations, EXTENSIONS_GROUP, Labels, nameHash } from '@agent-sandbox/api';
import {
  InvalidArgumentError,
  PODS,
  isNotFound,
  realClock,
  type Clock,
  type KubeClient,
} from '@agent-sandbox/kube';
import type { KubeObject, Pod } from '@agent-sandbox/kube-types';
import type {
  InformerSource,
  ReconcileContext,
  Reconciler,
  Request,
  Result,
} from '@agent-sandbox/runtime';
import { isDeepStrictEqual } from 'node:util';
import { ControllersError } from '../errors.ts';
import { READ, type Permission } from '../extensions/permissions.ts';
import {
  SANDBOX_TEMPLATES,
  SANDBOX_WARM_POOLS,
  type PoolObject,
  type SandboxObj,
  type TemplateObject,
} from '../extensions/resources.ts';
import { SANDBOXES } from '../sandbox/child-writes.ts';
import { WarmPoolExpectations } from './expectations.ts';
import { newMember } from './member.ts';
import { planPool, slowStartBatches, DEFAULT_READINESS_GRACE_MS, type PoolPlan } from './plan.ts';

export const SANDBOX_WARM_POOL_FIELD_OWNER = 'sandboxwarmpool-controller';
/** Sandboxes by `<namespace>/<agents.x-k8s.io/warm-pool-sandbox label>`. */
export const WARM_POOL_MEMBER_INDEX = 'warm-pool-sandbox';
export const DEFAULT_MAX_BATCH_SIZE = 300;
const EXPECTATIONS_REQUEUE_MS = 30_000;

export const SANDBOX_WARM_POOL_PERMISSIONS: readonly Permission[] = [
  { group: EXTENSIONS_GROUP, resource: 'sandboxwarmpools', verbs: READ },
  { group: EXTENSIONS_GROUP, resource: 'sandboxwarmpools/status', verbs: ['patch'] },
  { group: EXTENSIONS_GROUP, resource: 'sandboxtemplates', verbs: READ },
  {
    group: 'agents.x-k8s.io',
    resource: 'sandboxes',
    verbs: [...READ, 'create', 'update', 'delete'],
  },
  { group: '', resource: 'pods', verbs: READ },
];

export interface SandboxWarmPoolReconcilerOptions {
  client: KubeClient;
  informers: InformerSource;
  expectations: WarmPoolExpectations;
  /** @default 300 */
  maxBatchSize?: number;
  /** @default 5 minutes */
  readinessGraceMs?: number;
  /** @default true */
  enableEviction?: boolean;
  clock?: Clock;
}

/** Adds the membership index to the Sandbox informer once per manager. */
export function addMemberIndex(informers: InformerSource): void {
  try {
    informers.getInformer<SandboxObj>(SANDBOXES).addIndex(WARM_POOL_MEMBER_INDEX, (s) => {
      const hash = s.metadata.labels?.[Labels.WarmPoolSandbox];
      return hash === undefined ? [] : [`${s.metadata.namespace ?? ''}/${hash}`];
    });
  } catch (err: unknown) {
    if (!(err instanceof InvalidArgumentError)) throw err; // added already
  }
}

export class SandboxWarmPoolReconciler implements Reconciler {
  readonly #o: Required<Omit<SandboxWarmPoolReconcilerOptions, 'clock'>>;
  readonly #clock: Clock;

  constructor(options: SandboxWarmPoolReconcilerOptions) {
    const maxBatchSize = options.maxBatchSize || DEFAULT_MAX_BATCH_SIZE;
    if (!Number.isInteger(maxBatchSize) || maxBatchSize < 1) {
      throw new InvalidArgumentError(
        `warm pool maxBatchSize must be an integer >= 1 (got ${options.maxBatchSize}); omit it for ${DEFAULT_MAX_BATCH_SIZE}`,
      );
    }
    this.#o = {
      client: options.client,
      informers: options.informers,
      expectations: options.expectations,
      maxBatchSize,
      readinessGraceMs: options.readinessGraceMs ?? DEFAULT_READINESS_GRACE_MS,
      enableEviction: options.enableEviction ?? true,
    };
    this.#clock = options.clock ?? realClock;
    addMemberIndex(options.informers);
    options.informers.getInformer(PODS);
  }

  async reconcile(req: Request, ctx: ReconcileContext): Promise<Result | void> {
    const key = `${req.namespace}/${req.name}`;
    const { informers, expectations } = this.#o;
    const pool = informers.getInformer<PoolObject>(SANDBOX_WARM_POOLS).cache.get(key);
    if (pool === undefined || pool.metadata.deletionTimestamp !== undefined) {
      expectations.forget(key);
      return;
    }
    const nowMs = this.#clock.now();
    const template = informers
      .getInformer<TemplateObject>(SANDBOX_TEMPLATES)
      .cache.get(`${req.namespace}/${pool.spec.sandboxTemplateRef.name}`);
    const pods = informers.getInformer<Pod & KubeObject>(PODS).cache;
    const members = informers
      .getInformer<SandboxObj>(SANDBOXES)
      .cache.byIndex(WARM_POOL_MEMBER_INDEX, `${req.namespace}/${nameHash(req.name)}`);
    const plan = planPool(
      {
        pool,
        template,
        members,
        podOf: (s) =>
          pods.get(
            `${req.namespace}/${s.metadata.annotations?.[Annotations.PodName] ?? s.metadata.name ?? ''}`,
          ),
        isPendingDeletion: (uid) => expectations.isPendingDeletion(key, uid, nowMs),
        now: new Date(nowMs),
      },
      { readinessGraceMs: this.#o.readinessGraceMs, maxBatchSize: this.#o.maxBatchSize },
    );
    const errors: Error[] = [];
    let requeueMs = plan.graceRequeueMs;
    const later = (ms: number): void => {
      requeueMs = requeueMs === undefined ? ms : Math.min(requeueMs, ms);
    };
    for (const sandbox of plan.updates) {
      await this.#o.client
        .update(SANDBOXES, sandbox, {
          fieldManager: SANDBOX_WARM_POOL_FIELD_OWNER,
          signal: ctx.signal,
        })
        .catch((err: unknown) => errors.push(asError(err)));
    }
    for (const d of plan.deletes) {
      const failed = await this.#delete(key, d.sandbox, d.owned, ctx.signal);
      if (failed !== undefined) errors.push(failed);
    }
    // A failed member update means the count is unsure: create nothing this pass.
    if (plan.create > 0 && template !== undefined && errors.length === 0) {
      if (expectations.tryExpectCreations(key, plan.create, nowMs)) {
        const failed = await this.#createMembers(key, pool, template, plan.create, ctx.signal);
        if (failed !== undefined) errors.push(failed);
      } else later(EXPECTATIONS_REQUEUE_MS);
    }
    if (plan.excess.length > 0) {
      if (expectations.satisfied(key, nowMs)) {
        const failed = await this.#deleteExcess(key, plan, ctx.signal);
        if (failed !== undefined) errors.push(failed);
      } else later(EXPECTATIONS_REQUEUE_MS);
    }
    throwJoined(errors);
    await this.#writeStatus(pool, plan.status, ctx.signal);
    return requeueMs === undefined ? undefined : { requeueAfterMs: jitter(requeueMs) };
  }

  /** Slow-start batches of creates; stops after the first failing batch (§13.2 step 8). */
  async #createMembers(
    key: string,
    pool: PoolObject,
    template: TemplateObject,
    n: number,
    signal: AbortSignal,
  ): Promise<Error | undefined> {
    let issued = 0;
    for (const size of slowStartBatches(n)) {
      const results = await Promise.allSettled(
        Array.from({ length: size }, () =>
          this.#o.client.create(
            SANDBOXES,
            newMember(pool, template, { enableEviction: this.#o.enableEviction }),
            { fieldManager: SANDBOX_WARM_POOL_FIELD_OWNER, signal },
          ),
        ),
      );
      issued += size;
      const failures = results.filter((r) => r.status === 'rejected');
      if (failures.length > 0) {
        this.#o.expectations.lowerCreations(key, failures.length + (n - issued));
        return asError((failures[0] as PromiseRejectedResult).reason);
      }
    }
    return undefined;
  }

  async #deleteExcess(
    key: string,
    plan: PoolPlan,
    signal: AbortSignal,
  ): Promise<Error | undefined> {
    let next = 0;
    for (const size of slowStartBatches(plan.excess.length)) {
      const batch = plan.excess.slice(next, next + size);
      next += size;
      const failed = (await Promise.all(batch.map((s) => this.#delete(key, s, true, signal)))).find(
        (e) => e !== undefined,
      );
      if (failed !== undefined) return failed;
    }
    return undefined;
  }

  /** Deletes with a UID precondition; a pool-owned member's expectation is recorded first. */
  async #delete(
    key: string,
    sandbox: SandboxObj,
    owned: boolean,
    signal: AbortSignal,
  ): Promise<Error | undefined> {
    const uid = sandbox.metadata.uid ?? '';
    if (owned) this.#o.expectations.expectDeletion(key, uid, this.#clock.now());
    try {
      await this.#o.client.delete(
        SANDBOXES,
        sandbox.metadata.namespace,
        sandbox.metadata.name ?? '',
        {
          preconditions: { uid },
          signal,
        },
      );
      return undefined;
    } catch (err: unknown) {
      // No delete event will come: observe it now (NotFound counts as done).
      this.#o.expectations.deletionObserved(key, uid);
      return isNotFound(err) ? undefined : asError(err);
    }
  }

  async #writeStatus(
    pool: PoolObject,
    status: NonNullable<PoolObject['status']>,
    signal: AbortSignal,
  ): Promise<void> {
    const before = pool.status ?? {};
    const next = withoutZeros(status);
    if (isDeepStrictEqual(withoutZeros(before), next)) return;
    const body: Record<string, unknown> = {};
    for (const field of ['replicas', 'readyReplicas', 'selector', 'observedGeneration'] as const) {
      body[field] = next[field] ?? null;
    }
    try {
      await this.#o.client.patch(
        SANDBOX_WARM_POOLS,
        pool.metadata.namespace,
        pool.metadata.name ?? '',
        { type: 'merge', body: { status: body } },
        { subresource: 'status', fieldManager: SANDBOX_WARM_POOL_FIELD_OWNER, signal },
      );
    } catch (err: unknown) {
      if (!isNotFound(err)) throw err;
    }
  }
}

/** Go's omitempty: zero counts are absent from the stored status. */
function withoutZeros(s: NonNullable<PoolObject['status']>): NonNullable<PoolObject['status']> {
  const out: NonNullable<PoolObject['status']> = {};
  if (s.replicas) out.replicas = s.replicas;
  if (s.readyReplicas) out.readyReplicas = s.readyReplicas;
  if (s.selector) out.selector = s.selector;
  if (s.observedGeneration) out.observedGeneration = s.observedGeneration;
  return out;
}

/** Up to +50% so many pools' grace deadlines do not fire together. */
function jitter(ms: number): number {
  return Math.round(ms * (1 + Math.random() * 0.5));
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

function throwJoined(errors: readonly Error[]): void {
  if (errors.length === 0) return;
  if (errors.length === 1) throw errors[0];
  throw new ControllersError('ReconcileFailed', errors.map((e) => e.message).join('; '), {
    cause: new AggregateError(errors),
  });
}
