// The SandboxClaim reconciler (spec §12): the I/O around the pure claim functions. One pass:
// stamp the first-observed annotation, check expiry (two passes: persist ClaimExpired, then
// delete the claim or, under Retain, its Sandbox), find or adopt or cold-create the Sandbox, keep
// the bound Sandbox's pod-template metadata in line, and write the status as a locked merge patch
// (a 409 is dropped: the conflicting write's event brings the next pass).
import { Annotations, EXTENSIONS_GROUP, Labels } from '@agent-sandbox/api';
import {
  isAlreadyExists,
  isConflict,
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
import { isDeepStrictEqual } from 'node:util';
import { expireAt, finishedCondition, timeLeft } from '../lifecycle.ts';
import { normalizeCreatedBy, type AgentSandboxMetrics } from '../metrics.ts';
import { findCondition } from '../sandbox/conditions.ts';
import { recordSpanError } from '../tracing/spans.ts';
import { annotationFromContext, contextFromAnnotation } from '../tracing/trace-context.ts';
import { SANDBOXES } from '../sandbox/child-writes.ts';
import { mergePatchFrom } from '../extensions/merge-patch.ts';
import { READ, type Permission } from '../extensions/permissions.ts';
import {
  NETWORK_POLICIES,
  SANDBOX_CLAIMS,
  controlledByKind,
  isControlledBy,
  type ClaimObject,
  type SandboxObj,
  type TemplateObject,
} from '../extensions/resources.ts';
import type { WarmSandboxQueue } from '../warm-queue/warm-queue.ts';
import { candidateProblem } from './adoption.ts';
import {
  ClaimError,
  asClaimError,
  reconcilerError,
  templateNotFound,
  warmPoolNotFound,
} from './claim-errors.ts';
import { ExtensionEventRecorder, type ExtensionEvent } from '../extensions/events.ts';
import { recordReadiness } from './claim-metrics.ts';
import { ClaimReads } from './claim-reads.ts';
import {
  coldSandbox,
  desiredPodTemplateMetadata,
  validateAdditionalPodMetadata,
} from './claim-sandbox.ts';
import { claimStatusEqual, claimStatusPatch, computeClaimStatus } from './claim-status.ts';
import type { FirstSeenTimes } from './first-seen.ts';
import { CLAIM_FIELD_OWNER, WarmAdopter } from './warm-adopter.ts';
import {
  reservedAnnotationError,
  resolveWarmEnv,
  warmEnvEnabled,
  withWarmEnv,
} from './warm-env.ts';

export { CLAIM_FIELD_OWNER } from './warm-adopter.ts';

function withAnnotations(claim: ClaimObject, added: Record<string, string>): ClaimObject {
  return {
    ...claim,
    metadata: {
      ...claim.metadata,
      annotations: { ...(claim.metadata.annotations ?? {}), ...added },
    },
  };
}
export const WARM_CANDIDATE_GRACE_MS = 2_000;
export const CLAIM_EVENT_COMPONENT = 'sandboxclaim-controller';
const PENDING_REQUEUE_MS = 500;

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
};

export class SandboxClaimReconciler implements Reconciler {
  readonly #o: SandboxClaimReconcilerOptions;
  readonly #client: KubeClient;
  readonly #reads: ClaimReads;
  readonly #adopter: WarmAdopter;
  readonly #events: ExtensionEventRecorder;
  readonly #clock: Clock;

  constructor(options: SandboxClaimReconcilerOptions) {
    this.#o = options;
    this.#client = options.client;
    this.#reads = new ClaimReads(options.informers);
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
    await this.#deleteLegacyNetworkPolicy(claim, ctx);
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
    try {
      const now = new Date(this.#clock.now());
      const stamp = this.#missingObservability(claim, now);
      const traced = span.isRecording() ? this.#missingTrace(claim, parent.context, span) : {};
      Object.assign(stamp, traced);
      // In memory too (§12.2 step 4): a Sandbox this pass creates or adopts copies the trace.
      if (Object.keys(traced).length > 0) claim = withAnnotations(claim, traced);
      return await this.#pass(claim, req, { ctx, now, stamp });
    } catch (err: unknown) {
      recordSpanError(span, err);
      throw err;
    } finally {
      span.end();
    }
  }

  async #pass(claim: ClaimObject, req: Request, pass: Pass): Promise<Result | void> {
    const { ctx, now } = pass;
    const lifecycle = claim.spec.lifecycle;
    const expiry = timeLeft(
      now,
      expireAt(
        lifecycle?.shutdownTime,
        lifecycle?.ttlSecondsAfterFinished,
        finishedCondition(claim.status?.conditions, 'Finished'),
      ),
    );
    if (expiry.expired) {
      claim = await this.#flushStamp(claim, pass);
      if (findCondition(claim.status?.conditions, 'Ready')?.reason !== 'ClaimExpired') {
        return this.#markExpired(claim, pass);
      }
      const policy = lifecycle?.shutdownPolicy ?? 'Retain';
      if (policy === 'Delete' || policy === 'DeleteForeground') {
        await this.#deleteClaim(claim, policy, pass);
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
    const written = await this.#writeStatus(claim, status, ctx.signal);
    const bound = found.sandbox?.metadata.name;
    if ((written || unchanged) && bound !== undefined && status.sandbox?.name === bound) {
      await this.#deleteStrays(claim, bound, ctx);
    }
    if (written) {
      // Measured to the status write's answer, not to the pass's start: under a busy API server
      // most of a claim's wait is in this pass's own writes (spec §19.1: now − first-observed).
      const failed = await recordReadiness(
        this.#client,
        this.#o.metrics,
        claim,
        status,
        found.sandbox,
        new Date(this.#clock.now()),
        ctx.signal,
      );
      if (status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) {
        this.#o.firstSeen.drop(`${req.namespace}/${req.name}`);
      }
      if (failed !== undefined) throw failed;
    }
    const untilExpiry = expiry.remainingMs > 0 ? expiry.remainingMs : undefined;
    const err = found.error;
    if (err !== undefined) {
      const wait = err.requeueAfterMs;
      if (wait !== undefined) return { requeueAfterMs: Math.min(wait, untilExpiry ?? wait) };
      if (!err.suppressed) throw err;
    }
    return untilExpiry === undefined ? undefined : { requeueAfterMs: untilExpiry };
  }

  /** §12.2 step 4: the first-observed (and nothing else) annotation this claim still lacks. */
  #missingObservability(claim: ClaimObject, now: Date): Record<string, string> {
    if (this.#o.disableObservabilityAnnotations) return {};
    if (claim.metadata.annotations?.[Annotations.ControllerFirstObservedAt] !== undefined)
      return {};
    const seen = this.#o.firstSeen.get(
      `${claim.metadata.namespace ?? ''}/${claim.metadata.name ?? ''}`,
      claim.metadata.uid ?? '',
    );
    return {
      [Annotations.ControllerFirstObservedAt]: new Date(seen ?? now.getTime()).toISOString(),
    };
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
    if (Object.keys(pass.stamp).length === 0) return claim;
    const annotations = Object.fromEntries(
      Object.entries(pass.stamp).sort(([a], [b]) => (a < b ? -1 : 1)),
    );
    const updated = await this.#client.patch<ClaimObject>(
      SANDBOX_CLAIMS,
      claim.metadata.namespace,
      claim.metadata.name ?? '',
      { type: 'merge', body: { metadata: { annotations } } },
      { fieldManager: CLAIM_FIELD_OWNER, signal: pass.ctx.signal },
    );
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
    await this.#writeStatus(claim, status, pass.ctx.signal);
    await this.#event(
      claim,
      { type: 'Normal', reason: 'ClaimExpired', action: 'Claim Expired', note: 'Claim expired' },
      pass,
    );
    return { requeueAfterMs: 1 };
  }

  async #deleteClaim(
    claim: ClaimObject,
    policy: 'Delete' | 'DeleteForeground',
    pass: Pass,
  ): Promise<void> {
    await this.#event(
      claim,
      {
        type: 'Normal',
        reason: 'ClaimExpired',
        action: 'Deleting',
        note: `Deleting Claim (ShutdownPolicy=${policy})`,
      },
      pass,
    );
    await this.#client
      .delete(SANDBOX_CLAIMS, claim.metadata.namespace, claim.metadata.name ?? '', {
        propagationPolicy: policy === 'DeleteForeground' ? 'Foreground' : 'Background',
        preconditions: { uid: claim.metadata.uid ?? '' },
        signal: pass.ctx.signal,
      })
      .catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
  }

  /** §12.5: expired under Retain: delete the claim's Sandbox, refuse one it does not own. */
  async #retain(claim: ClaimObject, pass: Pass): Promise<Found> {
    const ns = claim.metadata.namespace ?? '';
    const name = claim.status?.sandbox?.name || claim.metadata.name || '';
    const sandbox = this.#reads.sandbox(ns, name);
    if (sandbox === undefined) return { claim };
    if (!isControlledBy(sandbox, claim)) {
      return {
        claim,
        error: new ClaimError(
          'ClaimExpired',
          `sandbox not owned by this claim: sandbox "${name}" is not owned by claim "${claim.metadata.name ?? ''}"`,
        ),
      };
    }
    if (sandbox.metadata.deletionTimestamp === undefined) {
      try {
        await this.#client.delete(SANDBOXES, ns, name, {
          preconditions: { uid: sandbox.metadata.uid ?? '' },
          signal: pass.ctx.signal,
        });
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
    const claimName = claim.metadata.name ?? '';
    const statusName = claim.status?.sandbox?.name;
    if (statusName) {
      const bound = this.#reads.sandbox(ns, statusName);
      if (bound !== undefined && isControlledBy(bound, claim)) {
        // Cold Sandboxes are named after the claim (and assigned to it too, see #createCold), so
        // the name alone tells the launch type of a label-less one.
        const type = statusName === claimName ? 'cold' : 'warm';
        return { claim, sandbox: await this.#ensureLaunchType(bound, type, pass) };
      }
    }
    // An assignment naming the claim itself is a recorded cold creation, not an adoption.
    const coldRecorded = this.#assigned(claim) === claimName;
    if (!coldRecorded) {
      const fromAssigned = await this.#fromAssigned(claim, pass);
      if (fromAssigned !== undefined) return fromAssigned;
    }
    const named = this.#reads.sandbox(ns, claimName);
    if (named !== undefined) {
      if (!isControlledBy(named, claim)) {
        throw reconcilerError(
          `sandbox "${claimName}" is not controlled by claim "${claimName}". Please use a different claim name or delete the sandbox manually`,
        );
      }
      return { claim, sandbox: await this.#ensureLaunchType(named, 'cold', pass) };
    }
    if (coldRecorded) return this.#createCold(claim, pass, false);
    // The claim's cache entry can lag its own writes (assignment, status) while the Sandbox cache
    // already shows the adoption: a Sandbox this claim controls wins over any new choice.
    const owned = this.#reads
      .controlledBy(claim)
      .find((s) => s.metadata.deletionTimestamp === undefined);
    if (owned !== undefined) {
      return { claim, sandbox: await this.#ensureLaunchType(owned, 'warm', pass) };
    }
    const hasEnv = (claim.spec.env?.length ?? 0) > 0;
    const forcesCold =
      (hasEnv && !warmEnvEnabled(this.#templateOf(claim))) ||
      (claim.spec.volumeClaimTemplates?.length ?? 0) > 0;
    if (!forcesCold) {
      // Warm env: the template's policy is checked before a candidate is taken.
      const template = hasEnv ? this.#templateOf(claim) : undefined;
      if (template !== undefined) resolveWarmEnv(claim, template);
      const candidate = this.#adopter.candidate(claim);
      if (candidate.sandbox !== undefined) return this.#adopt(claim, candidate.sandbox, pass);
      if (candidate.pending) {
        const seen =
          this.#o.firstSeen.get(`${ns}/${claimName}`, claim.metadata.uid ?? '') ??
          pass.now.getTime();
        const grace = this.#o.warmCandidateGraceMs ?? WARM_CANDIDATE_GRACE_MS;
        const left = grace - (pass.now.getTime() - seen);
        if (left > 0) return { claim, pendingMs: Math.min(PENDING_REQUEUE_MS, left) };
      }
    }
    return this.#createCold(claim, pass, true);
  }

  #assigned(claim: ClaimObject): string | undefined {
    return (
      claim.metadata.annotations?.[Annotations.SandboxName] ??
      claim.metadata.labels?.[Labels.SandboxName]
    );
  }

  /** §12.4 step 2: the Sandbox an earlier pass chose (adoption possibly unfinished). */
  async #fromAssigned(claim: ClaimObject, pass: Pass): Promise<Found | undefined> {
    const assigned = this.#assigned(claim);
    if (!assigned) return undefined;
    const sandbox = this.#reads.sandbox(claim.metadata.namespace ?? '', assigned);
    if (sandbox !== undefined && isControlledBy(sandbox, claim)) {
      const warm = await this.#ensureLaunchType(sandbox, 'warm', pass);
      return { claim: await this.#migrateLegacyLabel(claim, pass), sandbox: warm };
    }
    if (sandbox !== undefined && controlledByKind(sandbox, 'SandboxWarmPool') !== undefined) {
      if (candidateProblem(sandbox, claim) === undefined) {
        const template = this.#templateOf(claim);
        const adopted = await this.#adopter.complete(claim, sandbox, template, pass.ctx.signal);
        return { claim: await this.#migrateLegacyLabel(claim, pass), sandbox: adopted };
      }
    } else if (sandbox !== undefined && controlledByKind(sandbox, 'SandboxClaim') === undefined) {
      return undefined; // another owner, or none: keep the reference
    }
    await this.#removeReference(claim, pass);
    return undefined;
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
    const sandbox = await this.#adopter.complete(recorded, candidate, template, pass.ctx.signal);
    this.#eventBeside(
      recorded,
      {
        type: 'Normal',
        reason: 'SandboxAdopted',
        action: 'Adoption',
        note: `Adopted warm pool Sandbox "${sandbox.metadata.name ?? ''}"`,
      },
      pass,
    );
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
    this.#eventBeside(
      claim,
      {
        type: 'Normal',
        reason: 'SandboxProvisioned',
        action: 'Provisioning',
        note: `Created Sandbox "${created.metadata.name ?? ''}"`,
      },
      pass,
    );
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
    if (template === undefined) {
      if (claim.spec.additionalPodMetadata === undefined) return sandbox;
      if (pool === undefined) throw warmPoolNotFound(claim.spec.warmPoolRef.name);
      throw reconcilerError(
        `failed to get template for metadata propagation: SandboxTemplate "${pool.spec.sandboxTemplateRef.name}" not found`,
      );
    }
    const name = template.metadata.name ?? '';
    const podMetadata = desiredPodTemplateMetadata(claim, template.spec.podTemplate.metadata, name);
    if (sandbox.metadata.name !== claim.metadata.name) {
      const annotated = withWarmEnv(podMetadata.annotations, claim, template);
      if (annotated !== undefined) podMetadata.annotations = annotated;
    }
    const labels = { ...(sandbox.metadata.labels ?? {}) };
    labels[Labels.SandboxTemplateRefHash] =
      podMetadata.labels?.[Labels.SandboxTemplateRefHash] ?? '';
    const createdBy = claim.metadata.labels?.[Labels.CreatedBy];
    if (createdBy !== undefined) labels[Labels.CreatedBy] = createdBy;
    else delete labels[Labels.CreatedBy];
    const keepEvict = sandbox.spec.podTemplate.metadata?.annotations?.[Annotations.SafeToEvict];
    if (
      keepEvict !== undefined &&
      keepEvict !== 'true' &&
      podMetadata.annotations?.[Annotations.SafeToEvict] === undefined
    ) {
      podMetadata.annotations = {
        ...(podMetadata.annotations ?? {}),
        [Annotations.SafeToEvict]: keepEvict,
      };
    }
    const before = {
      metadata: { labels: sandbox.metadata.labels ?? {} },
      spec: { podTemplate: { metadata: sandbox.spec.podTemplate.metadata ?? {} } },
    };
    const after = { metadata: { labels }, spec: { podTemplate: { metadata: podMetadata } } };
    if (isDeepStrictEqual(JSON.parse(JSON.stringify(before)), JSON.parse(JSON.stringify(after))))
      return sandbox;
    const patch = mergePatchFrom(before, after);
    if (patch === undefined) return sandbox;
    return this.#client.patch<SandboxObj>(
      SANDBOXES,
      ns,
      sandbox.metadata.name ?? '',
      { type: 'merge', body: patch },
      {
        fieldManager: CLAIM_FIELD_OWNER,
        signal: pass.ctx.signal,
      },
    );
  }

  /**
   * Once the binding is durable, any other Sandbox this claim controls is a stray (a write of a
   * manager that died mid-pass, landing late): it is deleted, so one claim never holds two.
   */
  async #deleteStrays(claim: ClaimObject, bound: string, ctx: ReconcileContext): Promise<void> {
    for (const stray of this.#reads.controlledBy(claim)) {
      const name = stray.metadata.name ?? '';
      if (name === bound || stray.metadata.deletionTimestamp !== undefined) continue;
      ctx.logger.warn(
        { sandbox: name, bound },
        'deleting a second Sandbox controlled by the claim (one claim, one Sandbox)',
      );
      await this.#client
        .delete(SANDBOXES, stray.metadata.namespace, name, {
          preconditions: { uid: stray.metadata.uid ?? '' },
          signal: ctx.signal,
        })
        .catch((err: unknown) => {
          if (!isNotFound(err) && !isConflict(err)) throw err;
        });
    }
  }

  /** Raw label patch, never overwriting an existing launch-type (§12.4 step 1). */
  async #ensureLaunchType(
    sandbox: SandboxObj,
    type: 'warm' | 'cold',
    pass: Pass,
  ): Promise<SandboxObj> {
    if (sandbox.metadata.labels?.[Labels.LaunchType] !== undefined) return sandbox;
    return this.#client.patch<SandboxObj>(
      SANDBOXES,
      sandbox.metadata.namespace,
      sandbox.metadata.name ?? '',
      { type: 'merge', body: { metadata: { labels: { [Labels.LaunchType]: type } } } },
      { fieldManager: CLAIM_FIELD_OWNER, signal: pass.ctx.signal },
    );
  }

  /**
   * §12.4 step 2: an assignment read from the deprecated label moves to the annotation, guarded
   * by the claim's resourceVersion. Non-fatal: the label keeps working, a later pass retries.
   */
  async #migrateLegacyLabel(claim: ClaimObject, pass: Pass): Promise<ClaimObject> {
    const legacy = claim.metadata.labels?.[Labels.SandboxName];
    if (legacy === undefined || claim.metadata.annotations?.[Annotations.SandboxName] !== undefined)
      return claim;
    const metadata = {
      resourceVersion: claim.metadata.resourceVersion,
      labels: { [Labels.SandboxName]: null },
      annotations: { [Annotations.SandboxName]: legacy },
    };
    try {
      return await this.#client.patch<ClaimObject>(
        SANDBOX_CLAIMS,
        claim.metadata.namespace,
        claim.metadata.name ?? '',
        { type: 'merge', body: { metadata } },
        { fieldManager: CLAIM_FIELD_OWNER, signal: pass.ctx.signal },
      );
    } catch (err: unknown) {
      pass.ctx.logger.warn(
        { err },
        'moving the legacy sandbox-name label to the annotation failed',
      );
      return claim;
    }
  }

  /** Drops the sandbox-name annotation and the legacy label (a diff merge patch). */
  async #removeReference(claim: ClaimObject, pass: Pass): Promise<void> {
    const annotations = claim.metadata.annotations?.[Annotations.SandboxName] !== undefined;
    const label = claim.metadata.labels?.[Labels.SandboxName] !== undefined;
    const metadata: Record<string, unknown> = {};
    if (annotations) metadata['annotations'] = { [Annotations.SandboxName]: null };
    if (label) metadata['labels'] = { [Labels.SandboxName]: null };
    await this.#client.patch(
      SANDBOX_CLAIMS,
      claim.metadata.namespace,
      claim.metadata.name ?? '',
      { type: 'merge', body: { metadata } },
      {
        fieldManager: CLAIM_FIELD_OWNER,
        signal: pass.ctx.signal,
      },
    );
  }

  /** §12.2 step 2: a legacy per-claim NetworkPolicy controlled by this claim is deleted. */
  async #deleteLegacyNetworkPolicy(claim: ClaimObject, ctx: ReconcileContext): Promise<void> {
    const name = `${claim.metadata.name ?? ''}-network-policy`;
    const np = this.#reads.networkPolicy(claim.metadata.namespace ?? '', name);
    if (np === undefined || !isControlledBy(np, claim)) return;
    await this.#client
      .delete(NETWORK_POLICIES, claim.metadata.namespace, name, {
        preconditions: { uid: np.metadata.uid ?? '' },
        signal: ctx.signal,
      })
      .catch((err: unknown) => {
        if (!isNotFound(err))
          ctx.logger.warn({ err }, 'deleting the legacy claim NetworkPolicy failed');
      });
  }

  /** §12.2 step 11: locked merge patch; false when not written (unchanged, 409, NotFound). */
  async #writeStatus(
    claim: ClaimObject,
    next: NonNullable<ClaimObject['status']>,
    signal: AbortSignal,
  ): Promise<boolean> {
    if (claimStatusEqual(claim.status, next)) return false;
    try {
      await this.#client.patch(
        SANDBOX_CLAIMS,
        claim.metadata.namespace,
        claim.metadata.name ?? '',
        {
          type: 'merge',
          body: claimStatusPatch(claim, next),
        },
        { subresource: 'status', fieldManager: CLAIM_FIELD_OWNER, signal },
      );
      return true;
    } catch (err: unknown) {
      if (isConflict(err) || isNotFound(err)) return false;
      throw err;
    }
  }

  /**
   * An event on the way to Ready is sent beside the pass, not awaited: the claim's status write
   * does not queue behind it (one write less on the latency path under a busy API server).
   * Best effort either way, as client-go's recorder, which sends from a goroutine of its own.
   */
  #eventBeside(claim: ClaimObject, event: ExtensionEvent, pass: Pass): void {
    void this.#event(claim, event, pass);
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
