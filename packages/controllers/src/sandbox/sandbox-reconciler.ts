// The Sandbox reconciler (spec §11): the I/O around the pure plan. It reads the manager's informer
// caches, calls planSandbox, executes the writes (creates, metadata merge patches, deletes with a
// UID precondition), records events, and writes the status as an unlocked merge patch of
// `sandboxes/status` (§11.8). Level-triggered and idempotent; it never writes the user's spec.
// Tracing (§19.2): `ReconcileSandbox` continues the trace in the Sandbox's trace-context
// annotation, with child spans `reconcilePVCs` and `reconcilePod`.
import { Annotations, type v1beta1 } from '@agent-sandbox/api';
import {
  InvalidArgumentError,
  PODS,
  SERVICES,
  isNotFound,
  realClock,
  type Clock,
  type KubeClient,
} from '@agent-sandbox/kube';
import type { KubeObject, Pod, Service } from '@agent-sandbox/kube-types';
import type {
  InformerSource,
  ReconcileContext,
  Reconciler,
  Request,
  Result,
} from '@agent-sandbox/runtime';
import { trace, type Context } from '@opentelemetry/api';
import { LRUCache } from 'lru-cache';
import { ControllersError } from '../errors.ts';
import { recordSpanError, inSpan } from '../tracing/spans.ts';
import { annotationFromContext, contextFromAnnotation } from '../tracing/trace-context.ts';
import { SANDBOXES, SandboxChildren } from './child-writes.ts';
import { SANDBOX_FIELD_OWNER } from './desired-pod.ts';
import { SandboxEventRecorder, type SandboxEventRecorderOptions } from './events.ts';
import { expiredStatus, expiryAfterReconcile, type ExpiryTeardown } from './expiry.ts';
import {
  observedChildren,
  planSandbox,
  podStatusEvent,
  pvcStepError,
  reconcileSpanAttributes,
  returnedErrors,
  type PlanOutcome,
  type SandboxPlan,
} from './plan.ts';
import { computeStatus, isStatusWriteNeeded, statusMergePatch } from './status.ts';
import { StatusWriteMemory } from './status-memory.ts';
import { WriteBehindClock, isDeferrable, writeBehindWindowMs } from './write-behind.ts';
import type { AdoptionsInFlight } from '../warm-queue/adoptions-in-flight.ts';

export { POD_NAME_HASH_INDEX, SANDBOXES } from './child-writes.ts';

type Sandbox = v1beta1.Sandbox & KubeObject;
type SandboxStatus = v1beta1.SandboxStatus;
type Obj<T> = T & KubeObject;
type ReconcilePlan = Extract<SandboxPlan, { phase: 'Reconcile' }>;
/**
 * The reconcile context plus the context holding the `ReconcileSandbox` span, and the
 * resourceVersions this pass's own metadata patches of the Sandbox produced (copies that predate
 * its status write, see status-memory.ts).
 */
type PassContext = ReconcileContext & { spanContext: Context; produced: string[] };

export interface SandboxReconcilerOptions {
  client: KubeClient;
  /** The manager (its shared informers for Sandboxes, Pods, Services and PVCs). */
  informers: InformerSource;
  /** The DNS domain of `status.serviceFQDN`. @default 'cluster.local' */
  clusterDomain?: string;
  /** `--sandbox-write-behind-window` in ms (capped at 1s, §11.9). @default 0 (synchronous) */
  writeBehindWindowMs?: number;
  /** How repeated identical Events are folded into one (count, lastTimestamp). */
  events?: SandboxEventRecorderOptions;
  /**
   * Warm adoptions in flight (shared with the claim controller): a pass on an adopted Sandbox
   * waits for its claim's Ready write, for a bounded time (ADR 0039).
   */
  adoptionsInFlight?: AdoptionsInFlight;
  clock?: Clock;
}

export class SandboxReconciler implements Reconciler {
  readonly #client: KubeClient;
  readonly #children: SandboxChildren;
  readonly #clusterDomain: string | undefined;
  readonly #clock: Clock;
  readonly #writeBehindWindowMs: number;
  readonly #writeBehind = new WriteBehindClock();
  readonly #events: SandboxEventRecorder;
  readonly #adoptions: AdoptionsInFlight | undefined;
  /**
   * Trace-context annotations this process stamped, by Sandbox uid, until the cache shows them:
   * a pass queued by another event may still read the unstamped Sandbox, and must neither stamp
   * a second trace nor start one.
   */
  readonly #stamped = new LRUCache<string, string>({ max: 16_384 });
  /** The last status write per Sandbox: a pass from a copy that predates it starts from it. */
  readonly #statusWrites = new StatusWriteMemory();

  constructor(options: SandboxReconcilerOptions) {
    if (!options.client) throw new InvalidArgumentError('sandbox reconciler needs a client');
    if (!options.informers) throw new InvalidArgumentError('sandbox reconciler needs informers');
    this.#client = options.client;
    this.#children = new SandboxChildren(options.client, options.informers);
    this.#clusterDomain = options.clusterDomain;
    this.#clock = options.clock ?? realClock;
    this.#writeBehindWindowMs = writeBehindWindowMs(options.writeBehindWindowMs ?? 0);
    this.#events = new SandboxEventRecorder(options.client, options.events);
    this.#adoptions = options.adoptionsInFlight;
  }

  async reconcile(req: Request, ctx: ReconcileContext): Promise<Result | void> {
    // Before the cache read: the pass then starts from what the adoption wrote.
    const key = `${req.namespace}/${req.name}`;
    await this.#adoptions?.settled(ctx.signal, key);
    const cached = this.#children.cached<Sandbox>(SANDBOXES, req.namespace, req.name);
    if (cached === undefined || cached.metadata.deletionTimestamp !== undefined) {
      this.#writeBehind.clear(key);
      if (cached !== undefined) this.#statusWrites.forget(cached.metadata.uid ?? '');
      return;
    }
    // A copy older than this process's last status write reconciles from that status.
    const sandbox = this.#statusWrites.freshen(cached);
    const uid = sandbox.metadata.uid ?? '';
    const annotated = sandbox.metadata.annotations?.[Annotations.TraceContext];
    if (annotated) this.#stamped.delete(uid);
    const traceContext = annotated || this.#stamped.get(uid);
    const parent = contextFromAnnotation(traceContext);
    if ('ignored' in parent) {
      ctx.logger.debug(
        { annotation: Annotations.TraceContext, value: traceContext, reason: parent.ignored },
        'ignoring a malformed trace-context annotation; the reconcile starts a new trace',
      );
    }
    const span = ctx.tracer.startSpan(
      'ReconcileSandbox',
      { attributes: reconcileSpanAttributes(sandbox) },
      parent.context,
    );
    const pass: PassContext = {
      ...ctx,
      spanContext: trace.setSpan(parent.context, span),
      produced: [],
    };
    try {
      // §11.2 step 4: a recording span means tracing is on; stamp the trace on a Sandbox that
      // has none, so later passes (and whoever reads it) join this trace.
      if (span.isRecording() && !traceContext) await this.#stampTraceContext(sandbox, pass);
      return await this.#reconcile(sandbox, pass);
    } catch (err: unknown) {
      recordSpanError(span, err);
      throw err;
    } finally {
      span.end();
    }
  }

  /** Merge-patches the `opentelemetry.io/trace-context` annotation; NotFound is ignored. */
  async #stampTraceContext(sandbox: Sandbox, ctx: PassContext): Promise<void> {
    const value = annotationFromContext(ctx.spanContext);
    if (value === undefined) return;
    const uid = sandbox.metadata.uid ?? '';
    this.#stamped.set(uid, value);
    try {
      const patched = await this.#client.patch<Sandbox>(
        SANDBOXES,
        sandbox.metadata.namespace ?? '',
        sandbox.metadata.name ?? '',
        {
          type: 'merge',
          body: { metadata: { annotations: { [Annotations.TraceContext]: value } } },
        },
        { fieldManager: SANDBOX_FIELD_OWNER, signal: ctx.signal },
      );
      if (patched.metadata.resourceVersion) ctx.produced.push(patched.metadata.resourceVersion);
    } catch (err: unknown) {
      this.#stamped.delete(uid); // not written: the next pass tries again
      if (!isNotFound(err)) throw err;
    }
  }

  async #reconcile(sandbox: Sandbox, ctx: PassContext): Promise<Result | void> {
    const now = new Date(this.#clock.now());
    const reads = await this.#children.readsConfirmed(sandbox, ctx.signal);
    const plan = planSandbox(sandbox, reads, now);
    switch (plan.phase) {
      case 'Deleting':
        return;
      case 'MarkExpired': {
        const next = { ...(sandbox.status ?? {}), conditions: plan.conditions };
        await this.#writeStatus(sandbox, next, ctx.signal);
        return { requeueAfterMs: plan.requeueAfterMs };
      }
      case 'Teardown':
        await this.#teardown(sandbox, plan.teardown, now, ctx);
        return;
      case 'Reconcile':
        return this.#reconcileChildren(sandbox, plan, now, ctx);
    }
  }

  async #reconcileChildren(
    sandbox: Sandbox,
    plan: ReconcilePlan,
    now: Date,
    ctx: PassContext,
  ): Promise<Result | void> {
    const outcome: PlanOutcome = { now };
    await inSpan(ctx.tracer, ctx.spanContext, 'reconcilePVCs', {}, async (span) => {
      outcome.pvcError = await this.#children.pvcs(sandbox, plan.pvcs, ctx.signal);
      const failed = pvcStepError(plan, outcome);
      if (failed !== undefined) recordSpanError(span, failed);
    });

    const deferred = this.#deferPodWrite(sandbox, plan.pod, now);
    let podPlan = deferred.plan;
    await inSpan(ctx.tracer, ctx.spanContext, 'reconcilePod', {}, async (span) => {
      try {
        const executed = await this.#children.pod(sandbox, podPlan, ctx.signal);
        if (executed.sandboxVersion) ctx.produced.push(executed.sandboxVersion);
        podPlan = executed.plan;
        outcome.pod = executed.pod;
        const event = podStatusEvent(executed.plan, executed.pod);
        if (event !== undefined) span.addEvent(event.name, event.attributes);
      } catch (err: unknown) {
        outcome.podWriteError = asError(err);
      }
      const failed = outcome.podWriteError ?? podPlan.error;
      if (failed !== undefined) recordSpanError(span, failed);
    });
    if (plan.multiplePodsEvent !== undefined) {
      const failed = await this.#events.record(
        sandbox,
        {
          type: 'Warning',
          reason: 'MultiplePods',
          action: 'Reconciling',
          note: plan.multiplePodsEvent,
        },
        now,
      );
      if (failed !== undefined) ctx.logger.warn({ err: failed }, 'recording an event failed');
    }

    let serviceAct = plan.service;
    if (serviceAct !== undefined) {
      try {
        const executed = await this.#children.service(sandbox, serviceAct, ctx.signal);
        serviceAct = executed.action;
        outcome.service = executed.service;
      } catch (err: unknown) {
        outcome.serviceWriteError = asError(err);
      }
    }

    const executedPlan: ReconcilePlan = {
      ...plan,
      pod: podPlan,
      ...(serviceAct !== undefined ? { service: serviceAct } : {}),
    };
    const observed = observedChildren(sandbox, executedPlan, outcome);
    const computed = computeStatus(
      sandbox,
      observed,
      this.#clusterDomain !== undefined ? { clusterDomain: this.#clusterDomain } : {},
    );
    const { status, requeueAfterMs: expiryRequeueMs } = expiryAfterReconcile(
      sandbox,
      computed,
      now,
    );
    const requeueAfterMs = minDefined(expiryRequeueMs, deferred.requeueAfterMs);
    const errors = returnedErrors(observed);
    try {
      await this.#writeStatus(sandbox, status, ctx.signal, ctx.produced);
    } catch (err: unknown) {
      errors.push(asError(err));
    }
    throwJoined(errors);
    return requeueAfterMs === undefined ? undefined : { requeueAfterMs };
  }

  /**
   * Write-behind (§11.9): with a window, the metadata patch of an already-owned Pod is skipped
   * until the window since its first detection has passed; the next pass recomputes it.
   */
  #deferPodWrite(
    sandbox: Sandbox,
    podPlan: ReconcilePlan['pod'],
    now: Date,
  ): { plan: ReconcilePlan['pod']; requeueAfterMs?: number } {
    const key = `${sandbox.metadata.namespace ?? ''}/${sandbox.metadata.name ?? ''}`;
    if (this.#writeBehindWindowMs <= 0 || !isDeferrable(podPlan.write)) {
      this.#writeBehind.clear(key);
      return { plan: podPlan };
    }
    const decision = this.#writeBehind.decide(key, now.getTime(), this.#writeBehindWindowMs);
    if (decision.write) return { plan: podPlan };
    return {
      plan: { ...podPlan, write: { action: 'None' } },
      requeueAfterMs: decision.requeueAfterMs,
    };
  }

  /** Second expiry pass (§11.7): delete owned children, then the Sandbox or reset the status. */
  async #teardown(
    sandbox: Sandbox,
    teardown: ExpiryTeardown,
    now: Date,
    ctx: ReconcileContext,
  ): Promise<void> {
    const ns = sandbox.metadata.namespace ?? '';
    const errors: Error[] = [];
    const attempt = async (fn: () => Promise<void>): Promise<void> => {
      try {
        await fn();
      } catch (err: unknown) {
        errors.push(asError(err));
      }
    };
    if (teardown.deletePod !== undefined) {
      const name = teardown.deletePod;
      const uid = this.#children.cached<Obj<Pod>>(PODS, ns, name)?.metadata.uid;
      await attempt(() => this.#children.delete(PODS, ns, name, uid, ctx.signal));
    }
    if (teardown.deleteService !== undefined) {
      const name = teardown.deleteService;
      const uid = this.#children.cached<Obj<Service>>(SERVICES, ns, name)?.metadata.uid;
      await attempt(() => this.#children.delete(SERVICES, ns, name, uid, ctx.signal));
    }
    if (teardown.deleteSandbox && errors.length === 0) {
      const name = sandbox.metadata.name ?? '';
      await attempt(() =>
        this.#children.delete(SANDBOXES, ns, name, sandbox.metadata.uid, ctx.signal),
      );
      throwJoined(errors);
      return; // deleted: no status write
    }
    if (errors.length === 0) {
      await attempt(() => this.#writeStatus(sandbox, expiredStatus(sandbox, now), ctx.signal));
    }
    throwJoined(errors);
  }

  /**
   * §11.8: skip when unchanged; else an unlocked merge patch of `status`, remembered with the
   * versions that predate it (`produced`: this pass's own metadata patches); NotFound ignored.
   */
  async #writeStatus(
    sandbox: Sandbox,
    next: SandboxStatus,
    signal: AbortSignal,
    produced: readonly string[] = [],
  ): Promise<void> {
    if (!isStatusWriteNeeded(sandbox.status, next)) return;
    try {
      const answer = await this.#client.patch<Sandbox>(
        SANDBOXES,
        sandbox.metadata.namespace ?? '',
        sandbox.metadata.name ?? '',
        { type: 'merge', body: statusMergePatch(sandbox.status, next) },
        { subresource: 'status', fieldManager: SANDBOX_FIELD_OWNER, signal },
      );
      // The answer's status, not `next`: the patch is a merge over whatever the server held, and
      // a write landing between the pass's copy and this one (a killed manager's late patch) stays
      // in every field this patch left alone.
      if (answer.status !== undefined) {
        this.#statusWrites.written(
          sandbox.metadata.uid ?? '',
          {
            base: sandbox.metadata.resourceVersion,
            produced,
            ...(answer.metadata.resourceVersion ? { answer: answer.metadata.resourceVersion } : {}),
          },
          answer.status,
        );
      }
    } catch (err: unknown) {
      if (!isNotFound(err)) throw err;
    }
  }
}

function minDefined(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  return b === undefined ? a : Math.min(a, b);
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

/** Throws nothing for no errors, the error itself for one, a joined ReconcileFailed for more. */
function throwJoined(errors: readonly Error[]): void {
  if (errors.length === 0) return;
  if (errors.length === 1) throw errors[0];
  throw new ControllersError('ReconcileFailed', errors.map((e) => e.message).join('; '), {
    cause: new AggregateError(errors),
  });
}
