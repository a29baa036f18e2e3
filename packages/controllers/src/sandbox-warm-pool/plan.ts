// One SandboxWarmPool pass as data (spec §13.2–13.4): which listed Sandboxes are active members,
// which are terminating, which to delete (stale under Recreate, stale orphans, stuck past the
// readiness grace), which to update (launch-type label, orphan adoption), how many to create or
// delete to reach `spec.replicas`, and the status. The reconciler applies the expectations gate
// and performs the writes.
import { Labels, nameHash } from '@agent-sandbox/api';
import type { Pod } from '@agent-sandbox/kube-types';
import { blueprintHash, blueprintMatches } from '../extensions/blueprint.ts';
import {
  controllerRef,
  extensionsOwnerRef,
  isControlledBy,
  type PoolObject,
  type SandboxObj,
  type TemplateObject,
} from '../extensions/resources.ts';

export const DEFAULT_READINESS_GRACE_MS = 5 * 60_000;
const GRACE_SLACK_MS = 2_000;

export interface PoolReads {
  pool: PoolObject;
  /** undefined: the template does not exist (creation skipped, staleness not checked). */
  template: TemplateObject | undefined;
  /** Sandboxes carrying the pool's membership label. */
  members: readonly SandboxObj[];
  /** The Pod backing a member, if cached. */
  podOf(sandbox: SandboxObj): Pod | undefined;
  isPendingDeletion(uid: string): boolean;
  now: Date;
}

export interface PoolPlanOptions {
  readinessGraceMs: number;
  maxBatchSize: number;
}

export interface MemberDelete {
  sandbox: SandboxObj;
  reason: 'stale' | 'stuck';
  /** Pool-owned members get a deletion expectation (orphans do not). */
  owned: boolean;
}

export interface PoolPlan {
  active: SandboxObj[];
  terminating: number;
  deletes: MemberDelete[];
  /** Full objects to PUT (launch-type label; controller reference for an adopted orphan). */
  updates: SandboxObj[];
  unschedulable: number;
  desired: number;
  /** Creations wanted (before the expectations gate), at most maxBatchSize. */
  create: number;
  /** Excess members to delete, in order (not Ready first, newest first), at most maxBatchSize. */
  excess: SandboxObj[];
  status: NonNullable<PoolObject['status']>;
  /** The earliest readiness-grace deadline of a young not-Ready member. */
  graceRequeueMs?: number;
}

export function isSandboxReady(sandbox: SandboxObj): boolean {
  return (
    sandbox.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false
  );
}

/** isSandboxStale (§13.4); `memo` caches the semantic comparison per old hash within a pass. */
export function isStale(
  sandbox: SandboxObj,
  template: TemplateObject,
  templateName: string,
  orphan: boolean,
  memo: Map<string, boolean>,
): boolean {
  const labels = sandbox.metadata.labels ?? {};
  if (labels[Labels.SandboxTemplateRefHash] !== nameHash(templateName)) return true;
  if (orphan) return !blueprintMatches(template, sandbox);
  const current = blueprintHash(template);
  const have = labels[Labels.SandboxTemplateHash] ?? '';
  if (have === current || current === '') return false;
  const cached = memo.get(have);
  if (cached !== undefined) return cached;
  const stale = !blueprintMatches(template, sandbox);
  memo.set(have, stale);
  return stale;
}

function isUnschedulable(pod: Pod | undefined): boolean {
  if (pod === undefined || pod.metadata?.deletionTimestamp !== undefined) return false;
  return (
    pod.status?.conditions?.some(
      (c) => c.type === 'PodScheduled' && c.status === 'False' && c.reason === 'Unschedulable',
    ) ?? false
  );
}

export function planPool(reads: PoolReads, options: PoolPlanOptions): PoolPlan {
  const { pool, template } = reads;
  const strategy = pool.spec.updateStrategy?.type === 'Recreate' ? 'Recreate' : 'OnReplenish';
  const templateName = pool.spec.sandboxTemplateRef.name;
  const memo = new Map<string, boolean>();
  const plan: PoolPlan = {
    active: [],
    terminating: 0,
    deletes: [],
    updates: [],
    unschedulable: 0,
    desired: pool.spec.replicas ?? 1,
    create: 0,
    excess: [],
    status: {},
  };
  for (const sandbox of reads.members) {
    const owned = isControlledBy(sandbox, pool);
    const orphan = controllerRef(sandbox) === undefined;
    if (sandbox.metadata.deletionTimestamp !== undefined) {
      if (owned) plan.terminating++;
      continue;
    }
    if (owned && reads.isPendingDeletion(sandbox.metadata.uid ?? '')) {
      plan.terminating++;
      continue;
    }
    if (!owned && !orphan) continue;
    if (
      template !== undefined &&
      (strategy === 'Recreate' || orphan) &&
      isStale(sandbox, template, templateName, orphan, memo)
    ) {
      plan.deletes.push({ sandbox, reason: 'stale', owned });
      if (owned) plan.terminating++;
      continue;
    }
    const update = memberUpdate(sandbox, pool, orphan);
    if (update !== undefined) plan.updates.push(update);
    plan.active.push(update ?? sandbox);
  }
  gcStuck(plan, reads, options);
  const current = plan.active.length;
  const total = current + plan.terminating;
  plan.status = {
    replicas: current,
    readyReplicas: plan.active.filter(isSandboxReady).length,
    selector: `${Labels.WarmPoolSandbox}=${nameHash(pool.metadata.name ?? '')}`,
    observedGeneration: pool.metadata.generation ?? 0,
  };
  if (total < plan.desired && template !== undefined) {
    plan.create = Math.min(plan.desired - total, options.maxBatchSize);
  }
  if (current > plan.desired) {
    plan.excess = [...plan.active]
      .sort(excessOrder)
      .slice(0, Math.min(current - plan.desired, options.maxBatchSize));
  }
  return plan;
}

/** Readiness GC (§13.2 step 5): stuck members are deleted, unschedulable ones held. */
function gcStuck(plan: PoolPlan, reads: PoolReads, options: PoolPlanOptions): void {
  const now = reads.now.getTime();
  const kept: SandboxObj[] = [];
  for (const sandbox of plan.active) {
    if (isSandboxReady(sandbox)) {
      kept.push(sandbox);
      continue;
    }
    const created = Date.parse(sandbox.metadata.creationTimestamp ?? '');
    const age = Number.isNaN(created) ? 0 : now - created;
    if (age <= options.readinessGraceMs) {
      const remaining = options.readinessGraceMs - age + GRACE_SLACK_MS;
      plan.graceRequeueMs = Math.min(plan.graceRequeueMs ?? remaining, remaining);
      kept.push(sandbox);
    } else if (isUnschedulable(reads.podOf(sandbox))) {
      plan.unschedulable++;
      kept.push(sandbox);
    } else {
      plan.deletes.push({ sandbox, reason: 'stuck', owned: true });
      plan.terminating++;
    }
  }
  plan.active = kept;
}

/** The PUT a member needs: launch-type `warm`, and for an orphan the pool's controller ref. */
function memberUpdate(
  sandbox: SandboxObj,
  pool: PoolObject,
  orphan: boolean,
): SandboxObj | undefined {
  const labelled = sandbox.metadata.labels?.[Labels.LaunchType] === 'warm';
  if (labelled && !orphan) return undefined;
  const next = structuredClone(sandbox);
  next.metadata.labels = { ...(next.metadata.labels ?? {}), [Labels.LaunchType]: 'warm' };
  if (orphan) {
    next.metadata.ownerReferences = [
      ...(next.metadata.ownerReferences ?? []),
      extensionsOwnerRef(pool, 'SandboxWarmPool'),
    ];
  }
  return next;
}

function excessOrder(a: SandboxObj, b: SandboxObj): number {
  const ra = isSandboxReady(a) ? 1 : 0;
  const rb = isSandboxReady(b) ? 1 : 0;
  if (ra !== rb) return ra - rb;
  const ta = Date.parse(a.metadata.creationTimestamp ?? '') || 0;
  const tb = Date.parse(b.metadata.creationTimestamp ?? '') || 0;
  return tb - ta;
}

/** Sizes of slow-start batches for `n` writes: 1, 2, 4, … (client-go's slowStartBatch). */
export function slowStartBatches(n: number): number[] {
  const out: number[] = [];
  let size = 1;
  let left = n;
  while (left > 0) {
    const take = Math.min(size, left);
    out.push(take);
    left -= take;
    size *= 2;
  }
  return out;
}
