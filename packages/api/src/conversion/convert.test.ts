// convert(): dispatch on apiVersion and kind, same-version copies, and its errors.
import type { KubeObject } from '@agent-sandbox/kube-types';
import { describe, expect, it } from 'vitest';
import { convert } from './convert.ts';
import { ConversionError } from './errors.ts';
import * as claimPoolFixtures from './fixtures-claims-pools.ts';
import * as fixtures from './fixtures.ts';
import { sandboxClaimToV1alpha1, sandboxClaimToV1beta1 } from './sandbox-claim.ts';
import { sandboxTemplateToV1alpha1, sandboxTemplateToV1beta1 } from './sandbox-template.ts';
import { sandboxWarmPoolToV1alpha1, sandboxWarmPoolToV1beta1 } from './sandbox-warm-pool.ts';
import { sandboxToV1alpha1, sandboxToV1beta1 } from './sandbox.ts';

const [alphaSandbox] = fixtures.v1alpha1Sandboxes();
const [betaSandbox] = fixtures.v1beta1Sandboxes();
if (alphaSandbox === undefined || betaSandbox === undefined) throw new Error('fixtures are empty');

describe('convert dispatches on kind and apiVersion', () => {
  const A = 'extensions.agents.x-k8s.io/v1alpha1';
  const B = 'extensions.agents.x-k8s.io/v1beta1';
  type Case = [title: string, input: KubeObject, to: string, expected: KubeObject];
  /** One case per object: convert(obj, to) must equal the per-kind function's result. */
  function cases<T extends KubeObject>(
    objects: T[],
    to: string,
    direct: (obj: T) => KubeObject,
  ): Case[] {
    return objects.map((o) => [`${o.kind} ${o.metadata.name} → ${to}`, o, to, direct(o)]);
  }
  const allCases: Case[] = [
    ...cases(fixtures.v1alpha1Sandboxes(), 'agents.x-k8s.io/v1beta1', sandboxToV1beta1),
    ...cases(fixtures.v1beta1Sandboxes(), 'agents.x-k8s.io/v1alpha1', sandboxToV1alpha1),
    ...cases(fixtures.v1alpha1Templates(), B, sandboxTemplateToV1beta1),
    ...cases(fixtures.v1beta1Templates(), A, sandboxTemplateToV1alpha1),
    ...cases(claimPoolFixtures.v1alpha1Claims(), B, sandboxClaimToV1beta1),
    ...cases(claimPoolFixtures.v1beta1Claims(), A, sandboxClaimToV1alpha1),
    ...cases(claimPoolFixtures.v1alpha1Pools(), B, sandboxWarmPoolToV1beta1),
    ...cases(claimPoolFixtures.v1beta1Pools(), A, sandboxWarmPoolToV1alpha1),
  ];
  it.each(allCases)('%s', (_title, input, to, expected) => {
    const out = convert(fixtures.deepFreeze(structuredClone(input)), to);
    expect(out).toEqual(expected);
    expect(JSON.stringify(out)).toBe(JSON.stringify(expected)); // same key order: deterministic
  });

  it('same version returns an equal deep copy that shares nothing with the input', () => {
    const input = fixtures.deepFreeze(structuredClone(alphaSandbox));
    const out = convert(input, 'agents.x-k8s.io/v1alpha1');
    expect(out).toEqual(input);
    expect(out).not.toBe(input);
    expect(out.metadata).not.toBe(input.metadata);
    expect(Object.isFrozen(out.metadata)).toBe(false);
  });

  it('the result shares nothing with the input', () => {
    const input = structuredClone(alphaSandbox);
    const out = convert(input, 'agents.x-k8s.io/v1beta1') as typeof betaSandbox;
    out.spec.podTemplate.spec.containers.push({ name: 'extra' });
    (out.metadata.labels ?? {})['x'] = 'y';
    expect(input).toEqual(alphaSandbox);
  });
});

describe('convert errors', () => {
  const pool = claimPoolFixtures.v1beta1Pools()[0];
  it.each([
    [
      'not an object',
      'nope',
      'agents.x-k8s.io/v1beta1',
      'InvalidObject',
      'cannot convert: the object is not a JSON object',
    ],
    [
      'an array',
      [alphaSandbox],
      'agents.x-k8s.io/v1beta1',
      'InvalidObject',
      'cannot convert: the object is not a JSON object',
    ],
    [
      'no kind',
      { apiVersion: 'agents.x-k8s.io/v1alpha1', metadata: {}, spec: {} },
      'agents.x-k8s.io/v1beta1',
      'InvalidObject',
      'cannot convert: the object has no apiVersion or kind',
    ],
    [
      'unknown kind',
      { ...alphaSandbox, kind: 'Pod' },
      'agents.x-k8s.io/v1beta1',
      'UnsupportedKind',
      'cannot convert kind "Pod" (agents.x-k8s.io/v1alpha1): only Sandbox, SandboxTemplate, SandboxClaim, SandboxWarmPool convert',
    ],
    [
      'list kind',
      { ...alphaSandbox, kind: 'SandboxList' },
      'agents.x-k8s.io/v1beta1',
      'UnsupportedKind',
      /^cannot convert kind "SandboxList"/,
    ],
    [
      'unserved source version',
      { ...alphaSandbox, apiVersion: 'agents.x-k8s.io/v1' },
      'agents.x-k8s.io/v1beta1',
      'UnsupportedVersion',
      'cannot convert Sandbox from apiVersion "agents.x-k8s.io/v1": served versions are agents.x-k8s.io/v1beta1, agents.x-k8s.io/v1alpha1',
    ],
    [
      'source in the wrong group',
      { ...alphaSandbox, apiVersion: 'extensions.agents.x-k8s.io/v1alpha1' },
      'agents.x-k8s.io/v1beta1',
      'UnsupportedVersion',
      /^cannot convert Sandbox from apiVersion "extensions.agents.x-k8s.io\/v1alpha1"/,
    ],
    [
      'target in the wrong group',
      pool,
      'agents.x-k8s.io/v1alpha1',
      'UnsupportedVersion',
      'cannot convert SandboxWarmPool to apiVersion "agents.x-k8s.io/v1alpha1": served versions are extensions.agents.x-k8s.io/v1beta1, extensions.agents.x-k8s.io/v1alpha1',
    ],
    [
      'bare target version',
      alphaSandbox,
      'v1beta1',
      'UnsupportedVersion',
      /^cannot convert Sandbox to apiVersion "v1beta1"/,
    ],
    [
      'no metadata',
      { ...alphaSandbox, metadata: null },
      'agents.x-k8s.io/v1beta1',
      'InvalidObject',
      'cannot convert Sandbox: metadata is not an object',
    ],
    [
      'no spec',
      { ...alphaSandbox, spec: undefined },
      'agents.x-k8s.io/v1beta1',
      'InvalidObject',
      'cannot convert Sandbox team-a/minimal: spec is not an object',
    ],
  ])('%s → %s', (_title, input, to, code, message) => {
    let thrown: unknown;
    try {
      convert(input, to);
    } catch (err: unknown) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ConversionError);
    expect(thrown).toMatchObject({ name: 'ConversionError', code });
    if (typeof message === 'string') expect((thrown as Error).message).toBe(message);
    else expect((thrown as Error).message).toMatch(message);
  });

  it('a claim without its required ref converts as Go does, with an empty name', () => {
    const alpha = {
      apiVersion: 'extensions.agents.x-k8s.io/v1alpha1',
      kind: 'SandboxClaim',
      metadata: { name: 'c' },
      spec: {},
    };
    const beta = { ...alpha, apiVersion: 'extensions.agents.x-k8s.io/v1beta1' };
    expect(convert(alpha, beta.apiVersion)).toMatchObject({
      spec: { warmPoolRef: { name: 'shadow-pool-' } },
    });
    expect(convert(beta, alpha.apiVersion)).toMatchObject({
      spec: { sandboxTemplateRef: { name: '' }, warmpool: '' },
    });
  });

  it('per-kind errors pass through unchanged', () => {
    const template = fixtures.v1alpha1Templates()[0];
    const bad = {
      ...template,
      metadata: fixtures.meta('t', {
        annotations: { 'api.agents.x-k8s.io/v1beta1-volume-claim-templates-policy': 'Never' },
      }),
    };
    expect(() => convert(bad, 'extensions.agents.x-k8s.io/v1beta1')).toThrow(
      'invalid VolumeClaimTemplatesPolicy annotation value: "Never"',
    );
  });
});
