// Spec §21.3 on the pure claim functions: status (sandboxclaim_conditions_test.go), VCT policy
// matrix (TestCreateSandboxClaimVolumeClaimTemplatesSuccess/Errors), env injection, the adoption
// patch (TestSandboxClaimSandboxAdoption), candidate verification (TestIsAdoptable_RejectsUnowned,
// TestVerifySandboxCandidate_NamespaceIsolation, TestSandboxClaimPreventsAdoptionFromWrongWarmPool).
import { Annotations, Labels } from '@agent-sandbox/api';
import { describe, expect, it } from 'vitest';
import type {
  ClaimObject,
  PoolObject,
  SandboxObj,
  TemplateObject,
} from '../extensions/resources.ts';
import { mergePatchFrom } from '../extensions/merge-patch.ts';
import { newMember } from '../sandbox-warm-pool/member.ts';
import { adoptionPatch, candidateProblem } from './adoption.ts';
import { ClaimError } from './claim-errors.ts';
import { coldSandbox, mergeVolumeClaimTemplates } from './claim-sandbox.ts';
import { computeClaimStatus } from './claim-status.ts';

const now = new Date('2026-01-01T00:00:00Z');
const template: TemplateObject = {
  metadata: { name: 'tpl', namespace: 'ns' },
  spec: {
    podTemplate: {
      metadata: { labels: { app: 'a' } },
      spec: { containers: [{ name: 'main', image: 'busybox' }] },
    },
  },
};
const pool: PoolObject = {
  metadata: { name: 'pool', namespace: 'ns', uid: 'pu' },
  spec: { sandboxTemplateRef: { name: 'tpl' } },
};
const claim = (spec: Partial<ClaimObject['spec']> = {}): ClaimObject => ({
  metadata: { name: 'c', namespace: 'ns', uid: 'cu', generation: 4, resourceVersion: '9' },
  spec: { warmPoolRef: { name: 'pool' }, ...spec },
});
const vct = (name: string, storage = '1Gi') => ({
  metadata: { name },
  spec: { resources: { requests: { storage } } },
});
const message = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err: unknown) {
    if (err instanceof ClaimError) return `${err.reason}: ${err.conditionMessage}`;
    throw err;
  }
  return 'no error';
};

describe('computeClaimStatus', () => {
  it('TestSandboxClaimConditions: forwarded Ready carries the claim generation; Finished copied', () => {
    const sandbox: SandboxObj = {
      metadata: { name: 's' },
      spec: template.spec as SandboxObj['spec'],
      status: {
        podIPs: ['10.0.0.1'],
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'DependenciesReady',
            message: 'Pod is Ready',
            lastTransitionTime: '2025-12-31T23:59:00Z',
            observedGeneration: 1,
          },
          {
            type: 'Finished',
            status: 'True',
            reason: 'PodSucceeded',
            message: 'Pod completed successfully',
            lastTransitionTime: '2025-12-31T23:59:30Z',
            observedGeneration: 1,
          },
        ],
      },
    };
    const status = computeClaimStatus(claim(), { sandbox, error: undefined, expired: false, now });
    expect(
      status.conditions?.map((c) => [c.type, c.reason, c.observedGeneration, c.lastTransitionTime]),
    ).toEqual([
      ['Finished', 'PodSucceeded', 1, '2025-12-31T23:59:30Z'],
      ['Ready', 'DependenciesReady', 4, '2025-12-31T23:59:00Z'],
    ]);
    expect(status.sandbox).toEqual({ name: 's', podIPs: ['10.0.0.1'] });
  });

  it('TestSandboxClaimReconcile_TransientLookupErrorPreservesStatus: a transient error keeps the binding', () => {
    const bound = { ...claim(), status: { sandbox: { name: 's' } } };
    const status = computeClaimStatus(bound, {
      sandbox: undefined,
      error: new ClaimError('ReconcilerError', 'boom'),
      expired: false,
      now,
    });
    expect(status.sandbox).toEqual({ name: 's' });
    expect(status.conditions?.[0]).toMatchObject({
      reason: 'ReconcilerError',
      message: 'Error seen: boom',
    });
  });

  it('no sandbox → SandboxMissing; expired → ClaimExpired', () => {
    expect(
      computeClaimStatus(claim(), { sandbox: undefined, error: undefined, expired: false, now })
        .conditions?.[0]?.reason,
    ).toBe('SandboxMissing');
    expect(
      computeClaimStatus(claim(), { sandbox: undefined, error: undefined, expired: true, now })
        .conditions?.[0]?.message,
    ).toBe('Claim expired. Sandbox cleanup initiated.');
  });
});

describe('mergeVolumeClaimTemplates', () => {
  const tpl = (
    policy?: 'Allowed' | 'Overrides' | 'Disallowed',
    vcts = [vct('data')],
  ): TemplateObject => ({
    ...template,
    spec: {
      ...template.spec,
      volumeClaimTemplates: vcts,
      ...(policy ? { volumeClaimTemplatesPolicy: policy } : {}),
    },
  });
  it('TestCreateSandboxClaimVolumeClaimTemplatesSuccess: no claim VCTs bypass the policy; Allowed appends; Overrides replaces in place', () => {
    expect(mergeVolumeClaimTemplates(claim(), tpl())).toEqual([vct('data')]);
    expect(
      mergeVolumeClaimTemplates(claim({ volumeClaimTemplates: [vct('extra')] }), tpl('Allowed')),
    ).toEqual([vct('data'), vct('extra')]);
    expect(
      mergeVolumeClaimTemplates(
        claim({ volumeClaimTemplates: [vct('extra'), vct('data', '5Gi')] }),
        tpl('Overrides', [vct('data'), vct('logs')]),
      ),
    ).toEqual([vct('data', '5Gi'), vct('logs'), vct('extra')]);
  });
  it('TestCreateSandboxClaimVolumeClaimTemplatesErrors: Disallowed, empty policy, override forbidden, empty and duplicate names', () => {
    const withClaim = claim({ volumeClaimTemplates: [vct('data')] });
    expect(message(() => mergeVolumeClaimTemplates(withClaim, tpl()))).toBe(
      'VolumeClaimTemplatesError: failed to merge volume claim templates: volume claim templates are disallowed by the template',
    );
    expect(message(() => mergeVolumeClaimTemplates(withClaim, tpl('Allowed')))).toBe(
      'VolumeClaimTemplatesError: failed to merge volume claim templates: overriding volume claim templates is forbidden by the template: cannot override template volume "data"',
    );
    expect(message(() => mergeVolumeClaimTemplates(claim(), tpl(undefined, [vct('')])))).toBe(
      'VolumeClaimTemplatesError: invalid volume claim templates in template: invalid volume claim templates: name at index 0 is empty',
    );
    expect(
      message(() =>
        mergeVolumeClaimTemplates(
          claim({ volumeClaimTemplates: [vct('x'), vct('x')] }),
          tpl('Allowed'),
        ),
      ),
    ).toBe(
      'VolumeClaimTemplatesError: failed to merge volume claim templates: claim: invalid volume claim templates: duplicate name "x"',
    );
  });
});

describe('coldSandbox env', () => {
  const tpl = (policy: 'Allowed' | 'Overrides', envFrom = false): TemplateObject => ({
    ...template,
    spec: {
      ...template.spec,
      envVarsInjectionPolicy: policy,
      podTemplate: {
        spec: {
          initContainers: [{ name: 'init', image: 'x' }],
          containers: [
            {
              name: 'main',
              image: 'x',
              ...(envFrom ? { envFrom: [{ configMapRef: { name: 'cm' } }] } : {}),
            },
            { name: 'side', image: 'x', envFrom: [{ configMapRef: { name: 'cm' } }] },
          ],
        },
      },
    },
  });
  it('TestSandboxClaimReconcile env: default container, targeted init container, missing container, EnvFrom under Allowed', () => {
    const s = coldSandbox(
      claim({
        env: [
          { name: 'A', value: '1' },
          { name: 'B', value: '2', containerName: 'init' },
        ],
      }),
      tpl('Allowed'),
    );
    expect(s.spec.podTemplate.spec.containers[0]?.env).toEqual([{ name: 'A', value: '1' }]);
    expect(s.spec.podTemplate.spec.initContainers?.[0]?.env).toEqual([{ name: 'B', value: '2' }]);
    expect(
      message(() =>
        coldSandbox(
          claim({ env: [{ name: 'A', value: '1', containerName: 'nope' }] }),
          tpl('Allowed'),
        ),
      ),
    ).toBe(
      'ReconcilerError: Error seen: target container "nope" not found in template for environment variable "A"',
    );
    expect(
      message(() => coldSandbox(claim({ env: [{ name: 'A', value: '1' }] }), tpl('Allowed', true))),
    ).toBe(
      'EnvVarsInjectionRejected: environment variable injection rejected: container "main" uses EnvFrom sources; Allowed policy cannot safely prevent overriding EnvFrom-provided variables',
    );
    // Another container's EnvFrom is irrelevant; Overrides ignores EnvFrom.
    expect(
      coldSandbox(claim({ env: [{ name: 'A', value: '1' }] }), tpl('Allowed')).spec.podTemplate.spec
        .containers[0]?.env,
    ).toHaveLength(1);
    expect(
      coldSandbox(claim({ env: [{ name: 'A', value: '1' }] }), tpl('Overrides', true)).spec
        .podTemplate.spec.containers[0]?.env,
    ).toHaveLength(1);
  });
});

describe('adoption', () => {
  const candidate = (): SandboxObj => {
    const m = newMember(pool, template, { enableEviction: true });
    m.metadata.name = 'pool-abcde';
    m.metadata.resourceVersion = '7';
    return m;
  };
  it('TestIsAdoptable_RejectsUnowned / TestVerifySandboxCandidate_NamespaceIsolation / TestSandboxClaimPreventsAdoptionFromWrongWarmPool: unowned, other namespace, wrong pool', () => {
    expect(candidateProblem(candidate(), claim())).toBeUndefined();
    const unowned = candidate();
    unowned.metadata.ownerReferences = [];
    expect(candidateProblem(unowned, claim())).toBe('it is not controlled by a SandboxWarmPool');
    const other = candidate();
    other.metadata.namespace = 'other';
    expect(candidateProblem(other, claim())).toBe('it is in another namespace');
    expect(candidateProblem(candidate(), claim({ warmPoolRef: { name: 'x' } }))).toBe(
      'it belongs to SandboxWarmPool "pool", not "x"',
    );
  });

  it('TestSandboxClaimSandboxAdoption: the locked patch moves the Sandbox from the pool to the claim', () => {
    const patch = adoptionPatch(candidate(), claim(), template) as {
      metadata: Record<string, unknown>;
      spec: unknown;
    };
    expect(patch.metadata['resourceVersion']).toBe('7');
    expect(patch.metadata['ownerReferences']).toEqual([
      expect.objectContaining({ kind: 'SandboxClaim', uid: 'cu', controller: true }),
    ]);
    expect(patch.metadata['labels']).toMatchObject({
      [Labels.WarmPoolSandbox]: null,
      [Labels.SandboxTemplateHash]: null,
      [Labels.SandboxPodTemplateHash]: null,
      [Labels.ClaimUid]: 'cu',
      [Labels.CreatedBy]: null,
    });
    expect(patch.metadata['annotations']).toEqual({ [Annotations.PodName]: 'pool-abcde' });
    expect(patch.spec).toMatchObject({
      podTemplate: {
        metadata: {
          annotations: null,
          labels: {
            [Labels.WarmPoolSandbox]: null,
            [Labels.ClaimUid]: 'cu',
          },
        },
      },
    });
  });

  it('TestSandboxClaimSandboxAdoption: a template safe-to-evict "false" is kept', () => {
    const keep: TemplateObject = structuredClone(template);
    keep.spec.podTemplate.metadata = { annotations: { [Annotations.SafeToEvict]: 'false' } };
    const m = newMember(pool, keep, { enableEviction: true });
    m.metadata.name = 'pool-x';
    const patch = adoptionPatch(m, claim(), keep) as {
      spec?: { podTemplate?: { metadata?: { annotations?: unknown } } };
    };
    expect(patch.spec?.podTemplate?.metadata?.annotations).toBeUndefined();
  });
});

describe('mergePatchFrom', () => {
  it('sets changes, nulls removals, replaces arrays, undefined when equal', () => {
    expect(
      mergePatchFrom({ a: 1, b: { c: 1, d: 2 }, e: [1] }, { a: 1, b: { c: 2 }, e: [2] }),
    ).toEqual({ b: { c: 2, d: null }, e: [2] });
    expect(mergePatchFrom({ a: 1 }, { a: 1 })).toBeUndefined();
  });
});
