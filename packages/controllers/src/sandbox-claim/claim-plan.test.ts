// The claim pass's decisions as data (claim-plan.ts, claim-patches.ts): expiry phases, Retain,
// what a binding or assignment decides, the choice for an unbound claim, the warm-candidate wait,
// strays, how the pass ends, and the patch bodies. The scenarios (scenarios/, test/controllers)
// run the same decisions through the reconciler on both targets.
import { Annotations, Labels } from '@agent-sandbox/api';
import type { OwnerReference } from '@agent-sandbox/kube-types';
import { describe, expect, it } from 'vitest';
import type {
  ClaimObject,
  PoolObject,
  SandboxObj,
  TemplateObject,
} from '../extensions/resources.ts';
import { ClaimError } from './claim-errors.ts';
import {
  launchTypePatch,
  legacyLabelMigration,
  missingFirstObserved,
  planBoundMetadata,
  referenceRemovalPatch,
  stampPatch,
} from './claim-patches.ts';
import {
  PENDING_REQUEUE_MS,
  claimExpiry,
  expiredPhase,
  passEnd,
  planBinding,
  planChoice,
  planRetain,
  planWarmWait,
  retainedSandboxName,
  strays,
  type ChoiceReads,
} from './claim-plan.ts';
import { WARM_ENV_ANNOTATION } from './warm-env.ts';

const now = new Date('2026-01-01T00:00:00Z');
const claim = (
  over: { spec?: Partial<ClaimObject['spec']>; meta?: Partial<ClaimObject['metadata']> } = {},
  status?: ClaimObject['status'],
): ClaimObject => ({
  metadata: { name: 'c', namespace: 'ns', uid: 'cu', resourceVersion: '9', ...over.meta },
  spec: { warmPoolRef: { name: 'pool' }, ...over.spec },
  ...(status !== undefined ? { status } : {}),
});
const ref = (kind: string, name: string, uid: string): OwnerReference => ({
  apiVersion: 'extensions.agents.x-k8s.io/v1beta1',
  kind,
  name,
  uid,
  controller: true,
});
const sandbox = (
  name: string,
  owner?: OwnerReference,
  meta: Partial<SandboxObj['metadata']> = {},
): SandboxObj => ({
  metadata: {
    name,
    namespace: 'ns',
    uid: `${name}-uid`,
    ...(owner !== undefined ? { ownerReferences: [owner] } : {}),
    ...meta,
  },
  spec: { podTemplate: { spec: { containers: [{ name: 'main', image: 'busybox' }] } } },
});
const ours = (name: string, meta: Partial<SandboxObj['metadata']> = {}) =>
  sandbox(name, ref('SandboxClaim', 'c', 'cu'), meta);
const poolMember = (name: string) =>
  sandbox(name, ref('SandboxWarmPool', 'pool', 'pu'), {
    labels: { [Labels.WarmPoolSandbox]: 'h', [Labels.SandboxTemplateRefHash]: 't' },
  });
const template = (annotations?: Record<string, string>): TemplateObject => ({
  metadata: { name: 'tpl', namespace: 'ns', ...(annotations ? { annotations } : {}) },
  spec: {
    podTemplate: {
      metadata: { labels: { app: 'a' } },
      spec: { containers: [{ name: 'main', image: 'busybox' }] },
    },
  },
});
const pool: PoolObject = {
  metadata: { name: 'pool', namespace: 'ns', uid: 'pu' },
  spec: { sandboxTemplateRef: { name: 'tpl' } },
};
const readyExpired = {
  conditions: [
    {
      type: 'Ready',
      status: 'False' as const,
      reason: 'ClaimExpired',
      message: 'x',
      lastTransitionTime: '2025-12-31T00:00:00Z',
    },
  ],
};
const assignedTo = (name: string) => ({
  meta: { annotations: { [Annotations.SandboxName]: name } },
});
const none: ChoiceReads = { named: undefined, controlled: [], template: template() };

describe('expiry', () => {
  it('no lifecycle: not expired; shutdownTime past: expired; ahead: the time left', () => {
    expect(claimExpiry(claim(), now)).toEqual({ expired: false, remainingMs: 0 });
    const past = claim({ spec: { lifecycle: { shutdownTime: '2025-12-31T00:00:00Z' } } });
    expect(claimExpiry(past, now).expired).toBe(true);
    const ahead = claim({ spec: { lifecycle: { shutdownTime: '2026-01-01T00:00:05Z' } } });
    expect(claimExpiry(ahead, now)).toEqual({ expired: false, remainingMs: 5000 });
  });

  it('first marks ClaimExpired, then Delete / DeleteForeground delete the claim, Retain keeps it', () => {
    expect(expiredPhase(claim())).toEqual({ phase: 'MarkExpired' });
    const policy = (shutdownPolicy?: 'Delete' | 'DeleteForeground' | 'Retain') =>
      expiredPhase(
        claim(
          {
            spec: {
              lifecycle: { shutdownTime: 'x', ...(shutdownPolicy ? { shutdownPolicy } : {}) },
            },
          },
          readyExpired,
        ),
      );
    expect(policy('Delete')).toEqual({ phase: 'Delete', policy: 'Delete' });
    expect(policy('DeleteForeground')).toEqual({ phase: 'Delete', policy: 'DeleteForeground' });
    expect(policy('Retain')).toEqual({ phase: 'Retain' });
    expect(policy()).toEqual({ phase: 'Retain' });
  });

  it('Retain deletes its own Sandbox once, refuses one it does not own', () => {
    expect(retainedSandboxName(claim())).toBe('c');
    expect(retainedSandboxName(claim({}, { sandbox: { name: 'w' } }))).toBe('w');
    expect(planRetain(claim(), undefined)).toEqual({ kind: 'none' });
    expect(planRetain(claim(), ours('c'))).toEqual({ kind: 'delete', name: 'c', uid: 'c-uid' });
    const deleting = ours('c', { deletionTimestamp: '2026-01-01T00:00:00Z' });
    expect(planRetain(claim(), deleting)).toEqual({ kind: 'none' });
    const refused = planRetain(claim(), poolMember('c'));
    expect(refused.kind === 'refuse' && refused.error.conditionMessage).toBe(
      'Claim expired. sandbox not owned by this claim: sandbox "c" is not owned by claim "c"; deletion skipped.',
    );
  });
});

describe('planBinding', () => {
  it('a bound Sandbox the claim controls is kept: cold when named after the claim', () => {
    const cold = planBinding(claim({}, { sandbox: { name: 'c' } }), ours('c'), undefined);
    expect(cold).toMatchObject({ kind: 'bind', launchType: 'cold', migrateLabel: false });
    const warm = planBinding(claim({}, { sandbox: { name: 'w' } }), ours('w'), undefined);
    expect(warm).toMatchObject({ kind: 'bind', launchType: 'warm' });
  });

  it('a bound Sandbox it no longer controls, and no assignment: choose again', () => {
    const bound = claim({}, { sandbox: { name: 'w' } });
    expect(planBinding(bound, poolMember('w'), undefined)).toEqual({ kind: 'choose' });
  });

  it('an assignment to the claim itself is a recorded cold creation: choose', () => {
    expect(planBinding(claim(assignedTo('c')), undefined, undefined)).toEqual({ kind: 'choose' });
  });

  it('an assigned Sandbox: ours → bind warm and migrate the label; adoptable → complete', () => {
    const c = claim(assignedTo('w'));
    expect(planBinding(c, undefined, ours('w'))).toMatchObject({
      kind: 'bind',
      launchType: 'warm',
      migrateLabel: true,
    });
    expect(planBinding(c, undefined, poolMember('w'))).toMatchObject({
      kind: 'complete-adoption',
    });
  });

  it('the legacy label counts as an assignment', () => {
    const c = claim({ meta: { labels: { [Labels.SandboxName]: 'w' } } });
    expect(planBinding(c, undefined, poolMember('w')).kind).toBe('complete-adoption');
  });

  it('a dangling assignment is dropped: gone, another claim holds it, or no longer adoptable', () => {
    const c = claim(assignedTo('w'));
    expect(planBinding(c, undefined, undefined)).toEqual({ kind: 'drop-reference' });
    const taken = sandbox('w', ref('SandboxClaim', 'other', 'ou'));
    expect(planBinding(c, undefined, taken)).toEqual({ kind: 'drop-reference' });
    const otherPool = sandbox('w', ref('SandboxWarmPool', 'elsewhere', 'eu'), {
      labels: { [Labels.WarmPoolSandbox]: 'h', [Labels.SandboxTemplateRefHash]: 't' },
    });
    expect(planBinding(c, undefined, otherPool)).toEqual({ kind: 'drop-reference' });
  });

  it('an assigned Sandbox with another owner kind, or none, keeps the reference', () => {
    expect(planBinding(claim(assignedTo('w')), undefined, sandbox('w'))).toEqual({
      kind: 'choose',
    });
  });
});

describe('planChoice', () => {
  it('a claim-named Sandbox: bound cold when ours, an error naming the fix when not', () => {
    expect(planChoice(claim(), { ...none, named: ours('c') })).toMatchObject({
      kind: 'bind',
      launchType: 'cold',
    });
    const foreign = planChoice(claim(), { ...none, named: sandbox('c') });
    expect(foreign.kind === 'fail' && foreign.error.conditionMessage).toBe(
      'Error seen: sandbox "c" is not controlled by claim "c". Please use a different claim name or delete the sandbox manually',
    );
  });

  it('a recorded cold creation is created without recording again', () => {
    expect(planChoice(claim(assignedTo('c')), none)).toEqual({
      kind: 'create-cold',
      record: false,
    });
  });

  it('a live Sandbox the claim controls wins over a new choice (cache lag)', () => {
    const gone = ours('w1', { deletionTimestamp: '2026-01-01T00:00:00Z' });
    const choice = planChoice(claim(), { ...none, controlled: [gone, ours('w2')] });
    expect(choice).toMatchObject({ kind: 'bind', launchType: 'warm' });
    expect(choice.kind === 'bind' && choice.sandbox.metadata.name).toBe('w2');
    expect(planChoice(claim(), { ...none, controlled: [gone] })).toEqual({ kind: 'seek-warm' });
  });

  it('env without warm env, or volumeClaimTemplates, force a recorded cold creation', () => {
    const env = claim({ spec: { env: [{ name: 'A', value: '1' }] } });
    expect(planChoice(env, none)).toEqual({ kind: 'create-cold', record: true });
    const vcts = claim({
      spec: {
        volumeClaimTemplates: [
          { metadata: { name: 'd' }, spec: { resources: { requests: { storage: '1Gi' } } } },
        ],
      },
    });
    expect(planChoice(vcts, none)).toEqual({ kind: 'create-cold', record: true });
  });

  it('env with warm env seeks warm, unless the template policy rejects the env', () => {
    const annotated = template({ [WARM_ENV_ANNOTATION]: 'pod-annotation' });
    const warmEnv = {
      ...annotated,
      spec: { ...annotated.spec, envVarsInjectionPolicy: 'Allowed' as const },
    };
    const env = claim({ spec: { env: [{ name: 'A', value: '1' }] } });
    expect(planChoice(env, { ...none, template: warmEnv })).toEqual({ kind: 'seek-warm' });
    const rejecting: TemplateObject = {
      ...warmEnv,
      spec: { ...warmEnv.spec, envVarsInjectionPolicy: 'Disallowed' },
    };
    const failed = planChoice(env, { ...none, template: rejecting });
    expect(failed.kind === 'fail' && failed.error.reason).toBe('EnvVarsInjectionRejected');
  });
});

describe('planWarmWait', () => {
  it('waits only while a candidate lacks pod IPs and the claim is younger than the grace', () => {
    const seen = now.getTime() - 1_800;
    expect(planWarmWait(false, seen, now, 2_000)).toBeUndefined();
    expect(planWarmWait(true, seen, now, 2_000)).toBe(200);
    expect(planWarmWait(true, now.getTime(), now, 2_000)).toBe(PENDING_REQUEUE_MS);
    expect(planWarmWait(true, undefined, now, 2_000)).toBe(PENDING_REQUEUE_MS);
    expect(planWarmWait(true, now.getTime() - 2_000, now, 2_000)).toBeUndefined();
  });
});

describe('strays and the end of a pass', () => {
  it('strays are the other live Sandboxes the claim controls', () => {
    const gone = ours('x', { deletionTimestamp: '2026-01-01T00:00:00Z' });
    expect(strays('w', [ours('w'), ours('y'), gone]).map((s) => s.metadata.name)).toEqual(['y']);
  });

  it('requeues at the expiry, waits for a missing object, ends on a user error, backs off else', () => {
    expect(passEnd(undefined, 0)).toEqual({ kind: 'result', result: undefined });
    expect(passEnd(undefined, 5_000)).toEqual({
      kind: 'result',
      result: { requeueAfterMs: 5_000 },
    });
    const missing = new ClaimError('WarmPoolNotFound', 'x');
    expect(passEnd(missing, 0)).toEqual({ kind: 'result', result: { requeueAfterMs: 60_000 } });
    expect(passEnd(missing, 5_000)).toEqual({ kind: 'result', result: { requeueAfterMs: 5_000 } });
    const user = new ClaimError('InvalidMetadata', 'x');
    expect(passEnd(user, 0)).toEqual({ kind: 'result', result: undefined });
    const conflict = new ClaimError('AdoptionConflict', 'x');
    expect(passEnd(conflict, 0)).toEqual({ kind: 'fail', error: conflict });
  });
});

describe('patch bodies', () => {
  it('the stamp: first-observed only when missing, from the first sighting, keys sorted', () => {
    expect(missingFirstObserved(claim(), now.getTime() - 1_000, now)).toEqual({
      [Annotations.ControllerFirstObservedAt]: '2025-12-31T23:59:59.000Z',
    });
    const stamped = claim({
      meta: { annotations: { [Annotations.ControllerFirstObservedAt]: 'x' } },
    });
    expect(missingFirstObserved(stamped, undefined, now)).toEqual({});
    expect(stampPatch({})).toBeUndefined();
    expect(JSON.stringify(stampPatch({ b: '2', a: '1' }))).toBe(
      '{"metadata":{"annotations":{"a":"1","b":"2"}}}',
    );
  });

  it('launch type is never overwritten; the legacy label moves under the resourceVersion', () => {
    expect(launchTypePatch(ours('w'), 'warm')).toEqual({
      metadata: { labels: { [Labels.LaunchType]: 'warm' } },
    });
    const labelled = ours('w', { labels: { [Labels.LaunchType]: 'cold' } });
    expect(launchTypePatch(labelled, 'warm')).toBeUndefined();
    const legacy = claim({ meta: { labels: { [Labels.SandboxName]: 'w' } } });
    expect(legacyLabelMigration(legacy)).toEqual({
      metadata: {
        resourceVersion: '9',
        labels: { [Labels.SandboxName]: null },
        annotations: { [Annotations.SandboxName]: 'w' },
      },
    });
    expect(legacyLabelMigration(claim(assignedTo('w')))).toBeUndefined();
    expect(referenceRemovalPatch(claim(assignedTo('w')))).toEqual({
      metadata: { annotations: { [Annotations.SandboxName]: null } },
    });
  });

  it('bound metadata: nothing when in line, a patch when the template changed, errors when missing', () => {
    const tpl = template();
    const c = claim({}, { sandbox: { name: 'c' } });
    const first = planBoundMetadata(c, ours('c'), pool, tpl);
    expect(first.kind).toBe('patch');
    if (first.kind !== 'patch') return;
    const meta = first.body as { metadata: { labels: Record<string, string> } } & {
      spec: { podTemplate: { metadata: SandboxObj['spec']['podTemplate']['metadata'] } };
    };
    const inLine = ours('c', { labels: meta.metadata.labels });
    inLine.spec.podTemplate.metadata = meta.spec.podTemplate.metadata;
    expect(planBoundMetadata(c, inLine, pool, tpl)).toEqual({ kind: 'none' });
    expect(planBoundMetadata(c, inLine, pool, undefined)).toEqual({ kind: 'none' });
    const withMeta = claim({ spec: { additionalPodMetadata: { labels: { a: 'b' } } } });
    const noPool = planBoundMetadata(withMeta, inLine, undefined, undefined);
    expect(noPool.kind === 'fail' && noPool.error.reason).toBe('WarmPoolNotFound');
    const noTemplate = planBoundMetadata(withMeta, inLine, pool, undefined);
    expect(noTemplate.kind === 'fail' && noTemplate.error.conditionMessage).toBe(
      'Error seen: failed to get template for metadata propagation: SandboxTemplate "tpl" not found',
    );
  });
});
