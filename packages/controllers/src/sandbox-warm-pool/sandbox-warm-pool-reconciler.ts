// The SandboxWarmPool reconciler (spec §13): the I/O around planPool. It lists members through
// the Sandbox cache's membership index, paces creates (replenish hold, refill tokens: refill.ts),
// applies the expectations gate to creates and excess deletes, writes in slow-start batches (at
// most --sandbox-warm-pool-max-batch-size per pass), records the not-progressing events, and
// when the pass had no error writes `status` (status-writer.ts: changed, and count churn paced).
import { Annotations, EXTENSIONS_GROUP, Labels, nameHash } from '@agent-sandbox/api';
import {
  InvalidArgumentError,
  PODS,
  isConflict,
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
import type { AdoptionsInFlight } from '../warm-queue/adoptions-in-flight.ts';
import { ExtensionEventRecorder } from '../extensions/events.ts';
import { WarmPoolExpectations } from './expectations.ts';
import { newMember } from './member.ts';
import { planPool, slowStartBatches, DEFAULT_READINESS_GRACE_MS, type PoolPlan } from './plan.ts';
import {
  afterCreates,
  progress,
  refundTokens,
  replenishHold,
  takeTokens,
  type RefillState,
} from './refill.ts';
import { DEFAULT_STATUS_INTERVAL_MS } from './status-pace.ts';
import { PoolStatusWriter } from './status-writer.ts';

export const SANDBOX_WARM_POOL_FIELD_OWNER = 'sandboxwarmpool-controller';
/** Sandboxes by `<namespace>/<agents.x-k8s.io/warm-pool-sandbox label>`. */
export const WARM_POOL_MEMBER_INDEX = 'warm-pool-sandbox';
export const DEFAULT_MAX_BATCH_SIZE = 300;
const EXPECTATIONS_REQUEUE_MS = 30_000;
export const DEFAULT_UNSCHEDULABLE_RECHECK_MS = 60_000;

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
  { group: '', resource: 'events', verbs: ['create'] },
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
  /** `--sandbox-warm-pool-replenish-delay` in ms; 0 is off. @default 0 */
  replenishDelayMs?: number;
  /** `--sandbox-warm-pool-max-refill-rate`, creates per second per pool; 0 is unlimited. @default 0 */
  maxRefillRate?: number;
  /** `--sandbox-warm-pool-unschedulable-recheck-interval` in ms. @default 1 minute */
  unschedulableRecheckMs?: number;
  /**
   * Warm adoptions whose claim's Ready write is not answered yet (shared with the claim
   * controller): creates wait for them, for a bounded time (ADR 0039).
   */
  adoptionsInFlight?: AdoptionsInFlight;
  /** Least ms between two status writes that only move the counts (status-pace.ts); 0 writes each. @default 1000 */
  statusIntervalMs?: number;
  clock?: Clock;
  /** The grace requeue's jitter source, in [0, 1) (tests pin it). @default Math.random */
  random?: () => number;
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
  readonly #o: Required<
    Omit<
      SandboxWarmPoolReconcilerOptions,
      'clock' | 'adoptionsInFlight' | 'random' | 'statusIntervalMs'
    >
  >;
  readonly #adoptions: AdoptionsInFlight | undefined;
  readonly #clock: Clock;
  readonly #random: () => number;
  readonly #refill = new Map<string, RefillState>();
  readonly #events: ExtensionEventRecorder;
  readonly #status: PoolStatusWriter;

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
      // Zero is "use the default", as upstream's zero-valued fields (the CLI refuses <= 0).
      readinessGraceMs: options.readinessGraceMs || DEFAULT_READINESS_GRACE_MS,
      enableEviction: options.enableEviction ?? true,
      replenishDelayMs: options.replenishDelayMs ?? 0,
      maxRefillRate: options.maxRefillRate ?? 0,
      unschedulableRecheckMs: options.unschedulableRecheckMs || DEFAULT_UNSCHEDULABLE_RECHECK_MS,
    };
    this.#adoptions = options.adoptionsInFlight;
    if (!Number.isFinite(this.#o.maxRefillRate) || this.#o.maxRefillRate < 0) {
      throw new InvalidArgumentError(
        `warm pool maxRefillRate must be a finite number >= 0 (got ${options.maxRefillRate}); 0 is unlimited`,
      );
    }
    this.#events = new ExtensionEventRecorder(options.client, {
      component: SANDBOX_WARM_POOL_FIELD_OWNER,
      kind: 'SandboxWarmPool',
    });
    this.#clock = options.clock ?? realClock;
    this.#random = options.random ?? Math.random;
    const statusIntervalMs = options.statusIntervalMs ?? DEFAULT_STATUS_INTERVAL_MS;
    if (!Number.isFinite(statusIntervalMs) || statusIntervalMs < 0) {
      throw new InvalidArgumentError(
        `warm pool statusIntervalMs must be a finite number >= 0 (got ${options.statusIntervalMs}); 0 writes every change`,
      );
    }
    this.#status = new PoolStatusWriter({
      client: options.client,
      clock: this.#clock,
      fieldManager: SANDBOX_WARM_POOL_FIELD_OWNER,
      intervalMs: statusIntervalMs,
    });
    addMemberIndex(options.informers);
    options.informers.getInformer(PODS);
  }

  async reconcile(req: Request, ctx: ReconcileContext): Promise<Result | void> {
    const key = `${req.namespace}/${req.name}`;
    const { informers, expectations } = this.#o;
    const pool = informers.getInformer<PoolObject>(SANDBOX_WARM_POOLS).cache.get(key);
    if (pool === undefined || pool.metadata.deletionTimestamp !== undefined) {
      expectations.forget(key);
      this.#refill.delete(key);
      this.#status.forget(key);
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
    // Only the grace deadline is jittered (many pools' members age together); the recheck,
    // expectations and refill requeues are exact (§13.2 step 11).
    let requeueMs =
      plan.graceRequeueMs === undefined
        ? undefined
        : Math.round(plan.graceRequeueMs * (1 + this.#random() * 0.5));
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
    const hold = replenishHold(
      this.#refill.get(key) ?? {},
      plan.active.length,
      plan.desired,
      nowMs,
      this.#o.replenishDelayMs,
    );
    let refill = hold.state;
    // A failed member update means the count is unsure: create nothing this pass.
    if (plan.create > 0 && template !== undefined && errors.length === 0) {
      if (hold.holdMs !== undefined) later(hold.holdMs);
      else {
        const created = await this.#paced(key, pool, template, plan.create, refill, nowMs, ctx);
        refill = created.state;
        if (created.requeueMs !== undefined) later(created.requeueMs);
        if (created.error !== undefined) errors.push(created.error);
      }
    }
    const progressed = progress(
      refill,
      plan.unschedulable,
      plan.desired,
      this.#o.readinessGraceMs,
      this.#o.unschedulableRecheckMs,
    );
    this.#refill.set(key, progressed.state);
    if (progressed.recheckMs !== undefined) later(progressed.recheckMs);
    if (progressed.event !== undefined) {
      const failed = await this.#events.record(pool, progressed.event, new Date(nowMs));
      if (failed !== undefined) ctx.logger.warn({ err: failed }, 'recording an event failed');
    }
    if (plan.excess.length > 0) {
      if (expectations.satisfied(key, nowMs)) {
        const failed = await this.#deleteExcess(key, plan, ctx.signal);
        if (failed !== undefined) errors.push(failed);
      } else later(EXPECTATIONS_REQUEUE_MS);
    }
    throwJoined(errors);
    const statusMs = await this.#status.write(key, pool, plan, ctx.signal);
    const afterMs = earliest(requeueMs, statusMs);
    return afterMs === undefined ? undefined : { requeueAfterMs: afterMs };
  }

  /** Step 8: refill tokens, then the expectations gate, then the creates. */
  async #paced(
    key: string,
    pool: PoolObject,
    template: TemplateObject,
    want: number,
    state: RefillState,
    nowMs: number,
    ctx: ReconcileContext,
  ): Promise<{ state: RefillState; requeueMs?: number; error?: Error }> {
    const rate = this.#o.maxRefillRate;
    const grant = takeTokens(state, want, nowMs, rate);
    // Nothing granted: wait for the next token; a partial grant relies on the create events.
    if (grant.granted === 0) return { state: grant.state, requeueMs: grant.waitMs ?? 1_000 };
    if (!this.#o.expectations.tryExpectCreations(key, grant.granted, nowMs)) {
      return {
        state: refundTokens(grant.state, grant.granted, rate),
        requeueMs: EXPECTATIONS_REQUEUE_MS,
      };
    }
    await this.#adoptions?.settled(ctx.signal);
    const error = await this.#createMembers(key, pool, template, grant.granted, ctx.signal);
    return {
      state: afterCreates(grant.state, grant.granted),
      ...(error !== undefined ? { error } : {}),
    };
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

  /**
   * Deletes with UID and resourceVersion preconditions (a claim may have adopted the member since
   * the cache saw it: that write changed the resourceVersion, and the delete answers 409 instead
   * of taking the claim's Sandbox); a pool-owned member's expectation is recorded first.
   */
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
          preconditions: {
            uid,
            ...(sandbox.metadata.resourceVersion !== undefined
              ? { resourceVersion: sandbox.metadata.resourceVersion }
              : {}),
          },
          signal,
        },
      );
      return undefined;
    } catch (err: unknown) {
      // No delete event will come: observe it now (NotFound counts as done; a conflict means the
      // member changed, and its event brings the next pass).
      this.#o.expectations.deletionObserved(key, uid);
      return isNotFound(err) || isConflict(err) ? undefined : asError(err);
    }
  }
}

function earliest(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.min(a, b);
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
