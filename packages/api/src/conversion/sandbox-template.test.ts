// SandboxTemplate conversion, spec §4.2: the VolumeClaimTemplatesPolicy stash and the state annotation.
import { describe, expect, it } from 'vitest';
import type { SandboxTemplate as SandboxTemplateV1alpha1 } from '../v1alpha1/sandbox-template.ts';
import type { SandboxTemplate as SandboxTemplateV1beta1 } from '../v1beta1/sandbox-template.ts';
import {
  V1ALPHA1_SANDBOX_TEMPLATE_STATE_ANNOTATION as STATE,
  V1BETA1_VOLUME_CLAIM_TEMPLATES_POLICY_ANNOTATION as POLICY,
} from './annotations.ts';
import { ConversionError } from './errors.ts';
import { deepFreeze, meta } from './fixtures.ts';
import { sandboxTemplateToV1alpha1, sandboxTemplateToV1beta1 } from './sandbox-template.ts';

const podTemplate = { spec: { containers: [{ name: 'agent', image: 'agent:1' }] } };

function hub(
  policy?: 'Disallowed' | 'Allowed' | 'Overrides',
  annotations?: Record<string, string>,
): SandboxTemplateV1beta1 {
  return deepFreeze({
    apiVersion: 'extensions.agents.x-k8s.io/v1beta1',
    kind: 'SandboxTemplate',
    metadata: meta('tpl', { annotations }),
    spec: {
      podTemplate,
      envVarsInjectionPolicy: 'Allowed',
      ...(policy === undefined ? {} : { volumeClaimTemplatesPolicy: policy }),
    },
  });
}

function alpha(annotations?: Record<string, string>): SandboxTemplateV1alpha1 {
  return deepFreeze({
    apiVersion: 'extensions.agents.x-k8s.io/v1alpha1',
    kind: 'SandboxTemplate',
    metadata: meta('tpl', { annotations }),
    spec: { podTemplate, envVarsInjectionPolicy: 'Allowed' },
  });
}

describe('SandboxTemplate v1beta1 → v1alpha1 stashes volumeClaimTemplatesPolicy (§4.2)', () => {
  it.each(['Disallowed', 'Allowed', 'Overrides'] as const)(
    'policy %s → annotation, field removed, and back',
    (policy) => {
      const original = hub(policy, { keep: 'me' });
      const served = sandboxTemplateToV1alpha1(original);
      expect(served.apiVersion).toBe('extensions.agents.x-k8s.io/v1alpha1');
      expect(served.metadata.annotations).toEqual({ keep: 'me', [POLICY]: policy });
      expect(served.spec).not.toHaveProperty('volumeClaimTemplatesPolicy');
      const stored = sandboxTemplateToV1beta1(served);
      expect(stored.spec.volumeClaimTemplatesPolicy).toBe(policy);
      expect(stored.metadata.annotations).not.toHaveProperty(POLICY);
    },
  );

  it('no policy → no annotation, and a stale stash annotation on the hub is removed', () => {
    expect(sandboxTemplateToV1alpha1(hub()).metadata).not.toHaveProperty('annotations');
    const stale = hub(undefined, { [POLICY]: 'Allowed', keep: 'me' });
    expect(sandboxTemplateToV1alpha1(stale).metadata.annotations).toEqual({ keep: 'me' });
  });

  it('the state annotation is stripped and nothing is restored from it', () => {
    const state = JSON.stringify(alpha({ [POLICY]: 'Overrides' }));
    const served = sandboxTemplateToV1alpha1(hub('Allowed', { [STATE]: state }));
    expect(served.metadata.annotations).toEqual({ [POLICY]: 'Allowed' });
  });
});

describe('SandboxTemplate v1alpha1 → v1beta1 (§4.2)', () => {
  it('restores the policy from the annotation and removes the annotation', () => {
    const stored = sandboxTemplateToV1beta1(alpha({ [POLICY]: 'Overrides', keep: 'me' }));
    expect(stored.spec.volumeClaimTemplatesPolicy).toBe('Overrides');
    expect(Object.keys(stored.metadata.annotations ?? {})).toEqual(['keep', STATE]);
  });

  it('without the annotation the hub has no policy (the schema default applies)', () => {
    expect(sandboxTemplateToV1beta1(alpha()).spec).not.toHaveProperty('volumeClaimTemplatesPolicy');
  });

  it('stores the v1alpha1 object, stash annotation included, as the state', () => {
    const original = alpha({ [POLICY]: 'Allowed' });
    const stored = sandboxTemplateToV1beta1(original);
    expect(stored.metadata.annotations?.[STATE]).toBe(JSON.stringify(original));
  });

  it.each([
    {
      value: 'Sometimes',
      message: 'invalid VolumeClaimTemplatesPolicy annotation value: "Sometimes"',
    },
    { value: '', message: 'invalid VolumeClaimTemplatesPolicy annotation value: ""' },
    { value: 'allowed', message: 'invalid VolumeClaimTemplatesPolicy annotation value: "allowed"' },
    {
      value: 'a"b\\c\n',
      message: 'invalid VolumeClaimTemplatesPolicy annotation value: "a\\"b\\\\c\\n"',
    },
  ])('invalid annotation value $value → ConversionError "$message"', ({ value, message }) => {
    const convert = () => sandboxTemplateToV1beta1(alpha({ [POLICY]: value }));
    expect(convert).toThrow(ConversionError);
    expect(convert).toThrow(
      expect.objectContaining({ code: 'InvalidAnnotation', message }) as Error,
    );
  });
});
