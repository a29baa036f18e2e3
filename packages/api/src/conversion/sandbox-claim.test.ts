// SandboxClaim conversion, spec §5.4: warmPoolRef derivation, shadow pools, the "matches" rule.
import { describe, expect, it } from 'vitest';
import type { SandboxClaim as SandboxClaimV1alpha1 } from '../v1alpha1/sandbox-claim.ts';
import type { SandboxClaim as SandboxClaimV1beta1 } from '../v1beta1/sandbox-claim.ts';
import { V1ALPHA1_SANDBOX_CLAIM_STATE_ANNOTATION as STATE } from './annotations.ts';
import { deepFreeze, meta } from './fixtures.ts';
import {
  isMatchingWarmPoolRef,
  sandboxClaimToV1alpha1,
  sandboxClaimToV1beta1,
} from './sandbox-claim.ts';

function alpha(warmpool: string | undefined, sandboxName?: string): SandboxClaimV1alpha1 {
  return deepFreeze({
    apiVersion: 'extensions.agents.x-k8s.io/v1alpha1',
    kind: 'SandboxClaim',
    metadata: meta('my-claim'),
    spec: {
      sandboxTemplateRef: { name: 'my-template' },
      ...(warmpool === undefined ? {} : { warmpool }),
    },
    ...(sandboxName === undefined ? {} : { status: { sandbox: { name: sandboxName } } }),
  });
}

function hub(ref: string, extra: Partial<SandboxClaimV1beta1> = {}): SandboxClaimV1beta1 {
  return deepFreeze({
    apiVersion: 'extensions.agents.x-k8s.io/v1beta1',
    kind: 'SandboxClaim',
    metadata: meta('my-claim'),
    spec: { warmPoolRef: { name: ref } },
    ...extra,
  });
}

/** A hub last written through v1alpha1 as `original`, whose warmPoolRef a v1beta1 client set to `ref`. */
function retargeted(original: SandboxClaimV1alpha1, ref: string): SandboxClaimV1beta1 {
  const stored = sandboxClaimToV1beta1(original);
  return deepFreeze({ ...stored, spec: { ...stored.spec, warmPoolRef: { name: ref } } });
}

describe('SandboxClaim v1alpha1 → v1beta1 warmPoolRef derivation (§5.4 rules 1–3) and back', () => {
  it.each([
    {
      rule: 1,
      title: 'specific pool, cold',
      warmpool: 'my-pool',
      sandbox: 'my-claim',
      ref: 'my-pool',
    },
    {
      rule: 1,
      title: 'specific pool, warm',
      warmpool: 'my-pool',
      sandbox: 'my-pool-abcde',
      ref: 'my-pool',
    },
    {
      rule: 1,
      title: 'specific pool, unbound',
      warmpool: 'my-pool',
      sandbox: undefined,
      ref: 'my-pool',
    },
    {
      rule: 2,
      title: 'default, warm start',
      warmpool: 'default',
      sandbox: 'my-pool-abcde',
      ref: 'my-pool',
    },
    {
      rule: 2,
      title: 'none, bound elsewhere',
      warmpool: 'none',
      sandbox: 'other-xyz12',
      ref: 'other',
    },
    {
      rule: 2,
      title: 'default, suffixless sandbox',
      warmpool: 'default',
      sandbox: 'solo',
      ref: 'solo',
    },
    {
      rule: 3,
      title: 'default, cold start',
      warmpool: 'default',
      sandbox: 'my-claim',
      ref: 'shadow-pool-my-template',
    },
    {
      rule: 3,
      title: 'none, cold start',
      warmpool: 'none',
      sandbox: 'my-claim',
      ref: 'shadow-pool-my-template',
    },
    {
      rule: 3,
      title: 'unset, unbound',
      warmpool: undefined,
      sandbox: undefined,
      ref: 'shadow-pool-my-template',
    },
    {
      rule: 3,
      title: 'empty, unbound',
      warmpool: '',
      sandbox: undefined,
      ref: 'shadow-pool-my-template',
    },
    {
      rule: 3,
      title: 'empty sandbox name',
      warmpool: 'default',
      sandbox: '',
      ref: 'shadow-pool-my-template',
    },
  ])('rule $rule, $title → $ref → original restored', ({ warmpool, sandbox, ref }) => {
    const original = alpha(warmpool, sandbox);
    const stored = sandboxClaimToV1beta1(original);
    expect(stored.spec).toEqual({ warmPoolRef: { name: ref } });
    expect(stored.status).toEqual(original.status);
    const served = sandboxClaimToV1alpha1(stored);
    expect(served).toEqual(original);
    expect(served.metadata.annotations).not.toHaveProperty(STATE);
  });
});

describe('SandboxClaim v1beta1 → v1alpha1 without a state annotation (§5.4)', () => {
  it.each([
    {
      ref: 'shadow-pool-my-template',
      template: 'my-template',
      warmpool: 'default',
      title: 'shadow pool → its template, default',
    },
    {
      ref: 'my-pool',
      template: 'my-pool',
      warmpool: 'my-pool',
      title: 'quirk: pool name → warmpool and template both',
    },
    { ref: '', template: '', warmpool: '', title: 'empty ref → empty both' },
  ])('$title', ({ ref, template, warmpool }) => {
    const served = sandboxClaimToV1alpha1(hub(ref));
    expect(served.apiVersion).toBe('extensions.agents.x-k8s.io/v1alpha1');
    expect(served.spec).toEqual({ sandboxTemplateRef: { name: template }, warmpool });
  });

  it('shadow-pool round trip: v1beta1 shadow-pool-<t> → v1alpha1 <t>/default → v1beta1 shadow-pool-<t>', () => {
    const served = sandboxClaimToV1alpha1(hub('shadow-pool-python'));
    expect(sandboxClaimToV1beta1(served).spec.warmPoolRef.name).toBe('shadow-pool-python');
  });

  it('lossy: a pool literally named "default" comes back as shadow-pool-default', () => {
    const served = sandboxClaimToV1alpha1(hub('default'));
    expect(served.spec).toEqual({ sandboxTemplateRef: { name: 'default' }, warmpool: 'default' });
    expect(sandboxClaimToV1beta1(served).spec.warmPoolRef.name).toBe('shadow-pool-default');
  });

  it('lossy by spec: v1beta1-only volumeClaimTemplates are dropped and gone after a v1alpha1 write-back', () => {
    const vcts = [{ metadata: { name: 'workspace' }, spec: { accessModes: ['ReadWriteOnce'] } }];
    const original = hub('my-pool', {});
    const withVcts = deepFreeze({
      ...original,
      spec: { ...original.spec, volumeClaimTemplates: vcts },
    });
    const served = sandboxClaimToV1alpha1(withVcts);
    expect(served.spec).not.toHaveProperty('volumeClaimTemplates');
    expect(sandboxClaimToV1beta1(served).spec).not.toHaveProperty('volumeClaimTemplates');
  });
});

describe('SandboxClaim v1beta1 → v1alpha1 with a state annotation: the "matches" rule (§5.4)', () => {
  it.each([
    {
      actual: 'my-pool',
      expected: 'my-pool',
      sandbox: undefined,
      matches: true,
      title: 'equal to expected',
    },
    {
      actual: 'shadow-pool-tpl',
      expected: 'tpl',
      sandbox: undefined,
      matches: true,
      title: 'shadow-pool-<expected>',
    },
    {
      actual: 'pool-abcde',
      expected: 'tpl',
      sandbox: 'pool-abcde',
      matches: true,
      title: 'the bound sandbox name',
    },
    {
      actual: 'pool',
      expected: 'tpl',
      sandbox: 'pool-abcde',
      matches: true,
      title: 'the sandbox name minus suffix',
    },
    {
      actual: 'other',
      expected: 'tpl',
      sandbox: 'pool-abcde',
      matches: false,
      title: 'anything else',
    },
    {
      actual: 'other',
      expected: 'tpl',
      sandbox: '',
      matches: false,
      title: 'empty sandbox name never matches',
    },
    {
      actual: '',
      expected: 'tpl',
      sandbox: '',
      matches: false,
      title: 'empty ref vs empty sandbox',
    },
  ])('$title → $matches', ({ actual, expected, sandbox, matches }) => {
    expect(isMatchingWarmPoolRef(actual, expected, sandbox)).toBe(matches);
  });

  it('matching ref restores the original sandboxTemplateRef and warmpool (unset stays unset)', () => {
    const original = alpha(undefined);
    const served = sandboxClaimToV1alpha1(retargeted(original, 'my-template'));
    expect(served.spec).toEqual({ sandboxTemplateRef: { name: 'my-template' } });
  });

  it('a ref changed through v1beta1 becomes warmpool; the original template is kept', () => {
    const served = sandboxClaimToV1alpha1(retargeted(alpha('default'), 'gpu-pool'));
    expect(served.spec).toEqual({
      sandboxTemplateRef: { name: 'my-template' },
      warmpool: 'gpu-pool',
    });
    expect(sandboxClaimToV1beta1(served).spec.warmPoolRef.name).toBe('gpu-pool');
  });

  it('matches against the hub’s current status.sandbox.name', () => {
    const stored = sandboxClaimToV1beta1(alpha('default'));
    const adopted = deepFreeze({
      ...stored,
      spec: { warmPoolRef: { name: 'warm-pool' } },
      status: { sandbox: { name: 'warm-pool-k3j4h' } },
    });
    expect(sandboxClaimToV1alpha1(adopted).spec).toEqual({
      sandboxTemplateRef: { name: 'my-template' },
      warmpool: 'default',
    });
  });

  it('stores the v1alpha1 object (minus its own state) as the state annotation', () => {
    const original = alpha('my-pool', 'my-pool-abcde');
    expect(sandboxClaimToV1beta1(original).metadata.annotations?.[STATE]).toBe(
      JSON.stringify(original),
    );
  });

  it('a corrupt state is an InvalidState error', () => {
    const bad = hub('my-pool', { metadata: meta('my-claim', { annotations: { [STATE]: '[]' } }) });
    expect(() => sandboxClaimToV1alpha1(bad)).toThrow(
      expect.objectContaining({
        code: 'InvalidState',
        message: 'failed to unmarshal v1alpha1 SandboxClaim state: not a JSON object',
      }) as Error,
    );
  });
});
