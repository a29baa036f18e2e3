// The SandboxClaim reconciler (spec §12): the I/O around the pure claim plan (claim-plan.ts,
// claim-patches.ts). One pass: stamp the first-observed annotation, check expiry (two passes:
// persist ClaimExpired, then delete the claim or, under Retain, its Sandbox), find or adopt or
// cold-create the Sandbox, keep the bound Sandbox's pod-template metadata in line, and write the
// status as a locked merge patch (a 409 is dropped: the conflicting write's event brings the next
// pass).
import { Annotations, EXTENSIONS_GROUP, Labels } from '@agent-sandbox/api';
import {
  isAlreadyExists,
  isNotFound,
  realClock,
  type Clock,
  type KubeClient,
} from '@agent-sandbox/kube';
import type {
  InformerSource,
  ReconcileContext,
  Reconciler,
  Request,
  Result,
} from '@agent-sandbox/runtime';
import { trace, type Context, type Span } from '@opentelemetry/api';
import { normalizeCreatedBy, type AgentSandboxMetrics } from '../metrics.ts';
import { recordSpanError } from '../tracing/spans.ts';
import { annotationFromContext, contextFromAnnotation } from '../tracing/trace-context.ts';
import { SANDBOXES } from '../sandbox/child-writes.ts';
import { READ, type Permission } from '../extensions/permissions.ts';
import type { ClaimObject, SandboxObj, TemplateObject } from '../extensions/resources.ts';
import type { WarmSandboxQueue } from '../warm-queue/warm-queue.ts';
import type { AdoptionsInFlight } from '../warm-queue/adoptions-in-flight.ts';
import { ClaimError, asClaimError, templateNotFound, warmPoolNotFound } from './claim-errors.ts';
import { ExtensionEventRecorder, type ExtensionEvent } from '../extensions/events.ts';
import { recordReadiness } from './claim-metrics.ts';
import { missingFirstObserved, planBoundMetadata } from './claim-patches.ts';
import {
  WARM_CANDIDATE_GRACE_MS,
  assignedName,
  claimEvents,
  claimExpiry,
  expiredPhase,
  passEnd,
  planBinding,
  planChoice,
  planRetain,
  planWarmWait,
  retainedSandboxName,
} from './claim-plan.ts';
import { ClaimReads } from './claim-reads.ts';
import { coldSandbox, validateAdditionalPodMetadata } from './claim-sandbox.ts';
import { claimStatusEqual, computeClaimStatus } from './claim-status.ts';
import { ClaimWrites } from './claim-writes.ts';
import type { FirstSeenTimes } from './first-seen.ts';
import { CLAIM_FIELD_OWNER, WarmAdopter } from './warm-adopter.ts';
import { reservedAnnotationError } from './warm-env.ts';

export { CLAIM_FIELD_OWNER } from './warm-adopter.ts';
export { WARM_CANDIDATE_GRACE_MS } from './claim-plan.ts';

function withAnnotations(claim: ClaimObject, added: Record<string, string>): ClaimObject {
  return {
    ...claim,
    metadata: {
      ...claim.metadata,
      annotations: { ...(claim.metadata.annotations ?? {}), ...added },
    },
  };
}
export const CLAIM_EVENT_COMPONENT = 'sandboxclaim-controller';

export const SANDBOX_CLAIM_PERMISSIONS: readonly Permission[] = [
  {
    group: EXTENSIONS_GROUP,
    resource: 'sandboxclaims',
    verbs: [...READ, 'update', 'patch', 'delete'],
  },
  { group: EXTENSIONS_GROUP, resource: 'sandboxclaims/status', verbs: ['patch'] },
  { group: EXTENSIONS_GROUP, resource: 'sandboxwarmpools', verbs: READ },
  { group: EXTENSIONS_GROUP, resource: 'sandboxtemplates', verbs: READ },
  {
    group: 'agents.x-k8s.io',
    resource: 'sandboxes',
    verbs: [...READ, 'create', 'patch', 'delete'],
  },
  { group: 'networking.k8s.io', resource: 'networkpolicies', verbs: [...READ, 'delete'] },
  { group: '', resource: 'events', verbs: ['create'] },
];

export interface SandboxClaimReconcilerOptions {
  client: KubeClient;
  informers: InformerSource;
  queue: WarmSandboxQueue;
  firstSeen: FirstSeenTimes;
  metrics?: AgentSandboxMetrics;
  /** Label domains additionalPodMetadata may use. @default ['sandbox.users.io'] */
  allowedLabelDomains?: readonly string[];
  /** `--disable-claim-events`. @default false */
  disableEvents?: boolean;
  /** `--disable-claim-observability-annotations`. @default false */
  disableObservabilityAnnotations?: boolean;
  /**
   * How long a young claim waits for an IP-less warm candidate before going cold (§12.4 step 6).
   * Fixed upstream (no flag); tests on a loaded machine lengthen it. @default 2000
   */
  warmCandidateGraceMs?: number;
  /** Shared with the pool and Sandbox controllers: their writes wait for the Ready write. */
  adoptionsInFlight?: AdoptionsInFlight;
  clock?: Clock;
}

/** What the active or retain path found. */
interface Found {
  claim: ClaimObject;
  sandbox?: SandboxObj;
  error?: ClaimError;
  pendingMs?: number;
}

type Pass = {
  ctx: ReconcileContext;
  now: Date;
  stamp: Record<string, string>;
  /**
   * The newest claim this pass wrote or read from the API server: a pass that fails after
   * recording its choice writes its status against it (the cache's copy is older than the
   * pass's own Update, and the locked status patch would lose to it).
   */
  latest?: ClaimObject;
  /**
   * Events of this pass, sent (not awaited) once its status write is done: on the way to Ready
   * the claim's status is the one write its user waits for, and it goes first.
   */
  events: { claim: ClaimObject; event: ExtensionEvent }[];
  /** Ends this pass's adoption in flight (AdoptionsInFlight), if it made one. */
  endAdoption?: () => void;
};

export class SandboxClaimReconciler implements Reconciler {
  readonly #o: SandboxClaimReconcilerOptions;
  readonly #client: KubeClient;
  readonly #reads: ClaimReads;
  readonly #writes: ClaimWrites;
  readonly #adopter: WarmAdopter;
  readonly #events: ExtensionEventRecorder;
  readonly #clock: Clock;

  constructor(options: SandboxClaimReconcilerOptions) {
    this.#o = options;
    this.#client = options.client;
    this.#reads = new ClaimReads(options.informers);
    this.#writes = new ClaimWrites(options.client, this.#reads);
    this.#adopter = new WarmAdopter(options.client, this.#reads, options.queue);
    this.#events = new ExtensionEventRecorder(options.disableEvents ? undefined : options.client, {
      component: CLAIM_EVENT_COMPONENT,
      kind: 'SandboxClaim',
    });
    this.#clock = options.clock ?? realClock;
  }

  async reconcile(req: Request, ctx: ReconcileContext): Promise<Result | void> {
    let claim = this.#reads.claim(req.namespace, req.name);
    if (claim === undefined) {
      this.#o.firstSeen.drop(`${req.namespace}/${req.name}`);
      return;
    }
    await this.#writes.deleteLegacyNetworkPolicy(claim, ctx);
    if (claim.metadata.deletionTimestamp !== undefined) return;
    const parent = contextFromAnnotation(claim.metadata.annotations?.[Annotations.TraceContext]);
    const span = ctx.tracer.startSpan(
      'ReconcileSandboxClaim',
      {
        attributes: {
          'sandboxclaim.name': claim.metadata.name ?? '',
          'sandboxclaim.namespace': claim.metadata.namespace ?? '',
        },
      },
      parent.context,
    );
    const now = new Date(this.#clock.now());
    const pass: Pass = { ctx, now, stamp: {}, events: [] };
    try {
      const stamp = (pass.stamp = this.#missingObservability(claim, now));
      const traced = span.isRecording() ? this.#missingTrace(claim, parent.context, span) : {};
      Object.assign(stamp, traced);
      // In memory too (§12.2 step 4): a Sandbox this pass creates or adopts copies the trace.
      if (Object.keys(traced).length > 0) claim = withAnnotations(claim, traced);
      return await this.#pass(claim, req, pass);
    } catch (err: unknown) {
      recordSpanError(span, err);
      throw err;
    } finally {
      this.#statusWritten(pass);
      span.end();
    }
  }

  async #pass(claim: ClaimObject, req: Request, pass: Pass): Promise<Result | void> {
    const { ctx, now } = pass;
    const expiry = claimExpiry(claim, now);
    if (expiry.expired) {
      claim = await this.#flushStamp(claim, pass);
      const phase = expiredPhase(claim);
      if (phase.phase === 'MarkExpired') return this.#markExpired(claim, pass);
      if (phase.phase === 'Delete') {
        await this.#event(claim, claimEvents.deleting(phase.policy), pass);
        await this.#writes.deleteClaim(claim, phase.policy, ctx.signal);
        return;
      }
    }
    const found = expiry.expired
      ? await this.#retain(claim, pass)
      : await this.#active(claim, pass);
    if (found.pendingMs !== undefined) return { requeueAfterMs: found.pendingMs };
    claim = await this.#flushStamp(found.claim, pass);
    const status = computeClaimStatus(claim, {
      sandbox: found.sandbox,
      error: found.error,
      expired: expiry.expired,
      now,
    });
    const unchanged = claimStatusEqual(claim.status, status);
    const written = await this.#writes
      .writeStatus(claim, status, ctx.signal)
      .finally(() => this.#statusWritten(pass));
    const bound = found.sandbox?.metadata.name;
    if ((written || unchanged) && bound !== undefined && status.sandbox?.name === bound) {
      await this.#writes.deleteStrays(claim, bound, ctx);
    }
    if (written) await this.#afterStatusWrite(claim, status, found.sandbox, req, ctx);
    const end = passEnd(found.error, expiry.remainingMs);
    if (end.kind === 'fail') throw end.error;
    return end.result;
  }

  async #afterStatusWrite(
    claim: ClaimObject,
    status: NonNullable<ClaimObject['status']>,
    sandbox: SandboxObj | undefined,
    req: Request,
    ctx: ReconcileContext,
  ): Promise<void> {
    // Measured to the status write's answer, not to the pass's start: under a busy API server
    // most of a claim's wait is in this pass's own writes (spec §19.1: now − first-observed).
    const failed = await recordReadiness(
      this.#client,
      this.#o.metrics,
      claim,
      status,
      sandbox,
      new Date(this.#clock.now()),
      ctx.signal,
    );
    if (status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) {
      this.#o.firstSeen.drop(`${req.namespace}/${req.name}`);
    }
    if (failed !== undefined) throw failed;
  }

  /** §12.2 step 4: the first-observed (and nothing else) annotation this claim still lacks. */
  #missingObservability(claim: ClaimObject, now: Date): Record<string, string> {
    if (this.#o.disableObservabilityAnnotations) return {};
    return missingFirstObserved(claim, this.#firstSeen(claim), now);
  }

  #firstSeen(claim: ClaimObject): number | undefined {
    return this.#o.firstSeen.get(
      `${claim.metadata.namespace ?? ''}/${claim.metadata.name ?? ''}`,
      claim.metadata.uid ?? '',
    );
  }

  /** §12.2 step 4: the trace this pass runs in, for a claim that carries none. */
  #missingTrace(claim: ClaimObject, parent: Context, span: Span): Record<string, string> {
    if (this.#o.disableObservabilityAnnotations) return {};
    if (claim.metadata.annotations?.[Annotations.TraceContext]) return {};
    const value = annotationFromContext(trace.setSpan(parent, span));
    return value === undefined ? {} : { [Annotations.TraceContext]: value };
  }

  /** Writes the pending observability annotations as a raw merge patch (once per claim). */
  async #flushStamp(claim: ClaimObject, pass: Pass): Promise<ClaimObject> {
    const updated = await this.#writes.flushStamp(claim, pass.stamp, pass.ctx.signal);
    pass.stamp = {};
    return updated;
  }

  async #markExpired(claim: ClaimObject, pass: Pass): Promise<Result> {
    const bound = claim.status?.sandbox?.name;
    const sandbox = bound ? this.#reads.sandbox(claim.metadata.namespace ?? '', bound) : undefined;
    const status = computeClaimStatus(claim, {
      sandbox,
      error: undefined,
      expired: true,
      now: pass.now,
    });
    await this.#writes.writeStatus(claim, status, pass.ctx.signal);
    await this.#event(claim, claimEvents.expired, pass);
    return { requeueAfterMs: 1 };
  }

  /** §12.5: expired under Retain: delete the claim's Sandbox, refuse one it does not own. */
  async #retain(claim: ClaimObject, pass: Pass): Promise<Found> {
    const ns = claim.metadata.namespace ?? '';
    const plan = planRetain(claim, this.#reads.sandbox(ns, retainedSandboxName(claim)));
    if (plan.kind === 'refuse') return { claim, error: plan.error };
    if (plan.kind === 'delete') {
      try {
        await this.#writes.deleteSandbox(ns, plan.name, plan.uid, pass.ctx.signal);
      } catch (err: unknown) {
        if (!isNotFound(err)) return { claim, error: asClaimError(err) };
      }
    }
    return { claim };
  }

  /** §12.3: validate, find/adopt/create, then keep the bound Sandbox's metadata in line. */
  async #active(claim: ClaimObject, pass: Pass): Promise<Found> {
    const invalid =
      validateAdditionalPodMetadata(claim, this.#o.allowedLabelDomains ?? []) ??
      reservedAnnotationError(claim);
    if (invalid !== undefined) return { claim, error: invalid };
    let found: Found = { claim };
    try {
      found = await this.#getOrCreate(claim, pass);
      if (found.sandbox !== undefined) {
        found.sandbox = await this.#syncBoundMetadata(found.claim, found.sandbox, pass);
      }
    } catch (err: unknown) {
      found = { claim: pass.latest ?? found.claim, error: asClaimError(err) };
    }
    return found;
  }

  async #getOrCreate(claim: ClaimObject, pass: Pass): Promise<Found> {
    const ns = claim.metadata.namespace ?? '';
    const statusName = claim.status?.sandbox?.name;
    const assigned = assignedName(claim);
    const binding = planBinding(
      claim,
      statusName ? this.#reads.sandbox(ns, statusName) : undefined,
      assigned ? this.#reads.sandbox(ns, assigned) : undefined,
    );
    switch (binding.kind) {
      case 'bind': {
        const sandbox = await this.#writes.ensureLaunchType(
          binding.sandbox,
          binding.launchType,
          pass.ctx.signal,
        );
        if (!binding.migrateLabel) return { claim, sandbox };
        return { claim: await this.#writes.migrateLegacyLabel(claim, pass.ctx), sandbox };
      }
      case 'complete-adoption': {
        const template = this.#templateOf(claim);
        const adopted = await this.#adopter.complete(
          claim,
          binding.sandbox,
          template,
          pass.ctx.signal,
        );
        return { claim: await this.#writes.migrateLegacyLabel(claim, pass.ctx), sandbox: adopted };
      }
      case 'drop-reference':
        await this.#writes.removeReference(claim, pass.ctx.signal);
        break;
      case 'choose':
        break;
    }
    return this.#choose(claim, pass);
  }

  /** §12.3–12.4 for a claim with no binding: bind what exists, adopt warm, wait, or go cold. */
  async #choose(claim: ClaimObject, pass: Pass): Promise<Found> {
    const ns = claim.metadata.namespace ?? '';
    const choice = planChoice(claim, {
      named: this.#reads.sandbox(ns, claim.metadata.name ?? ''),
      controlled: this.#reads.controlledBy(claim),
      template: this.#templateOf(claim),
    });
    switch (choice.kind) {
      case 'fail':
        throw choice.error;
      case 'bind': {
        const signal = pass.ctx.signal;
        return {
          claim,
          sandbox: await this.#writes.ensureLaunchType(choice.sandbox, choice.launchType, signal),
        };
      }
      case 'create-cold':
        return this.#createCold(claim, pass, choice.record);
      case 'seek-warm': {
        const candidate = this.#adopter.candidate(claim);
        if (candidate.sandbox !== undefined) return this.#adopt(claim, candidate.sandbox, pass);
        const grace = this.#o.warmCandidateGraceMs ?? WARM_CANDIDATE_GRACE_MS;
        const wait = planWarmWait(candidate.pending, this.#firstSeen(claim), pass.now, grace);
        if (wait !== undefined) return { claim, pendingMs: wait };
        return this.#createCold(claim, pass, true);
      }
    }
  }

  async #adopt(claim: ClaimObject, candidate: SandboxObj, pass: Pass): Promise<Found> {
    let recorded: ClaimObject;
    try {
      recorded = await this.#adopter.record(
        claim,
        candidate.metadata.name ?? '',
        pass.stamp,
        pass.ctx.signal,
        (latest) => (pass.latest = latest),
      );
      pass.stamp = {}; // rode along in the Update
    } catch (err: unknown) {
      this.#adopter.giveBack(claim, candidate);
      throw err;
    }
    const template = this.#templateOf(recorded);
    // The patch takes the Sandbox out of its pool: what that sets off waits for the status write.
    pass.endAdoption ??= this.#o.adoptionsInFlight?.enter(
      `${candidate.metadata.namespace ?? ''}/${candidate.metadata.name ?? ''}`,
    );
    const sandbox = await this.#adopter.complete(recorded, candidate, template, pass.ctx.signal);
    pass.events.push({ claim: recorded, event: claimEvents.adopted(sandbox.metadata.name ?? '') });
    const ready = sandbox.status?.conditions?.some(
      (c) => c.type === 'Ready' && c.status === 'True',
    );
    this.#countCreation(
      recorded,
      sandbox,
      'warm',
      candidate.metadata.ownerReferences?.find((r) => r.controller)?.name ?? 'none',
      ready ? 'ready' : 'not_ready',
      sandbox.metadata.annotations?.[Annotations.SandboxTemplateRef] ?? '__unknown__',
    );
    return { claim: recorded, sandbox };
  }

  /**
   * §12.8, with the choice recorded first (unless an earlier pass did): the resourceVersion-guarded
   * assignment on the claim is the lock that keeps a claim whose cache entry lags from cold-creating
   * beside a Sandbox it already adopted, and a dead manager's in-flight create from being doubled.
   */
  async #createCold(claim: ClaimObject, pass: Pass, record: boolean): Promise<Found> {
    const ns = claim.metadata.namespace ?? '';
    const poolName = claim.spec.warmPoolRef.name;
    const pool = this.#reads.pool(ns, poolName);
    if (pool === undefined) throw warmPoolNotFound(poolName);
    const template = this.#reads.template(ns, pool.spec.sandboxTemplateRef.name);
    if (template === undefined) throw templateNotFound(pool.spec.sandboxTemplateRef.name);
    const desired = coldSandbox(claim, template);
    if (record) {
      claim = await this.#adopter.record(
        claim,
        claim.metadata.name ?? '',
        pass.stamp,
        pass.ctx.signal,
        (latest) => (pass.latest = latest),
      );
      pass.stamp = {}; // rode along in the Update
    }
    let created: SandboxObj;
    try {
      created = await this.#client.create(SANDBOXES, desired, {
        fieldManager: CLAIM_FIELD_OWNER,
        signal: pass.ctx.signal,
      });
    } catch (err: unknown) {
      if (!isAlreadyExists(err)) throw err;
      throw new ClaimError(
        'SandboxCreatePending',
        'Sandbox already created; waiting for cache to converge',
      );
    }
    pass.events.push({ claim, event: claimEvents.provisioned(created.metadata.name ?? '') });
    this.#countCreation(
      claim,
      created,
      'cold',
      poolName,
      'not_ready',
      template.metadata.name ?? '',
    );
    return { claim, sandbox: created };
  }

  #templateOf(claim: ClaimObject): TemplateObject | undefined {
    const ns = claim.metadata.namespace ?? '';
    const pool = this.#reads.pool(ns, claim.spec.warmPoolRef.name);
    return pool === undefined
      ? undefined
      : this.#reads.template(ns, pool.spec.sandboxTemplateRef.name);
  }

  /** §12.3 step 3: template metadata and claim metadata edits reach a bound Sandbox in place. */
  async #syncBoundMetadata(
    claim: ClaimObject,
    sandbox: SandboxObj,
    pass: Pass,
  ): Promise<SandboxObj> {
    const ns = claim.metadata.namespace ?? '';
    const pool = this.#reads.pool(ns, claim.spec.warmPoolRef.name);
    const template =
      pool === undefined ? undefined : this.#reads.template(ns, pool.spec.sandboxTemplateRef.name);
    const plan = planBoundMetadata(claim, sandbox, pool, template);
    if (plan.kind === 'fail') throw plan.error;
    if (plan.kind === 'none') return sandbox;
    return this.#writes.patchSandbox(sandbox, plan.body, pass.ctx.signal);
  }

  /**
   * The status write is answered (or the pass ended without one): the pool may refill, and the
   * pass's events go out beside it, not awaited — before the write they queued ahead of it on
   * a busy API server. Best effort either way, as client-go's recorder, which sends from a
   * goroutine of its own. Idempotent.
   */
  #statusWritten(pass: Pass): void {
    pass.endAdoption?.();
    for (const { claim, event } of pass.events.splice(0)) void this.#event(claim, event, pass);
  }

  async #event(claim: ClaimObject, event: ExtensionEvent, pass: Pass): Promise<void> {
    const failed = await this.#events.record(claim, event, pass.now);
    if (failed !== undefined) pass.ctx.logger.warn({ err: failed }, 'recording an event failed');
  }

  #countCreation(
    claim: ClaimObject,
    sandbox: SandboxObj,
    launchType: 'warm' | 'cold',
    pool: string,
    podCondition: 'ready' | 'not_ready',
    template: string,
  ): void {
    this.#o.metrics?.claimCreationTotal.inc({
      namespace: claim.metadata.namespace ?? '',
      sandbox_template: template,
      launch_type: launchType,
      warmpool_name: pool,
      pod_condition: podCondition,
      created_by: normalizeCreatedBy(
        claim.metadata.labels?.[Labels.CreatedBy] ?? sandbox.metadata.labels?.[Labels.CreatedBy],
      ),
    });
  }
}
