// Sandbox conversion, spec §3.4: the replicas ⇄ operatingMode tables and the state annotation.
import { describe, expect, it } from 'vitest';
import type { Sandbox as SandboxV1alpha1 } from '../v1alpha1/sandbox.ts';
import type { Sandbox as SandboxV1beta1 } from '../v1beta1/sandbox.ts';
import { V1ALPHA1_SANDBOX_STATE_ANNOTATION as STATE } from './annotations.ts';
import { ConversionError } from './errors.ts';
import { deepFreeze, meta } from './fixtures.ts';
import { sandboxToV1alpha1, sandboxToV1beta1 } from './sandbox.ts';

const podTemplate = { spec: { containers: [{ name: 'agent', image: 'agent:1' }] } };

function alpha(replicas?: number, statusReplicas?: number): SandboxV1alpha1 {
  return deepFreeze({
    apiVersion: 'agents.x-k8s.io/v1alpha1',
    kind: 'Sandbox',
    metadata: meta('sb'),
    spec: { podTemplate, ...(replicas === undefined ? {} : { replicas }) },
    status: {
      podIPs: ['10.0.0.1'],
      ...(statusReplicas === undefined ? {} : { replicas: statusReplicas }),
    },
  });
}

function hub(operatingMode?: 'Running' | 'Suspended', withStatus = true): SandboxV1beta1 {
  return deepFreeze({
    apiVersion: 'agents.x-k8s.io/v1beta1',
    kind: 'Sandbox',
    metadata: meta('sb'),
    spec: { podTemplate, ...(operatingMode === undefined ? {} : { operatingMode }) },
    ...(withStatus ? { status: { podIPs: ['10.0.0.1'], nodeName: 'node-1' } } : {}),
  });
}

/** A hub that was last written through v1alpha1 as `original`, then had its mode set to `mode`. */
function hubFrom(original: SandboxV1alpha1, mode: 'Running' | 'Suspended'): SandboxV1beta1 {
  const stored = sandboxToV1beta1(original);
  return deepFreeze({ ...stored, spec: { ...stored.spec, operatingMode: mode } });
}

describe('Sandbox v1alpha1 → v1beta1 → v1alpha1 (§3.4 table)', () => {
  it.each([
    { replicas: undefined, mode: 'Running', back: undefined, title: 'nil → Running → nil' },
    { replicas: 1, mode: 'Running', back: 1, title: '1 → Running → 1' },
    { replicas: 0, mode: 'Suspended', back: 0, title: '0 → Suspended → 0' },
  ])('$title', ({ replicas, mode, back }) => {
    const original = alpha(replicas, replicas ?? 1);
    const stored = sandboxToV1beta1(original);
    expect(stored.spec.operatingMode).toBe(mode);
    expect(stored.spec).not.toHaveProperty('replicas');
    const served = sandboxToV1alpha1(stored);
    expect(served.spec.replicas).toBe(back);
    expect('replicas' in served.spec).toBe(back !== undefined);
    expect(served).toEqual(original);
  });
});

describe('Sandbox v1beta1 → v1alpha1 without a state annotation (§3.4)', () => {
  it.each([
    { mode: 'Running', replicas: 1, title: 'Running → replicas 1' },
    { mode: 'Suspended', replicas: 0, title: 'Suspended → replicas 0' },
    { mode: undefined, replicas: 1, title: 'hub empty mode → replicas 1' },
  ] as const)('$title, status.replicas the same as a best effort', ({ mode, replicas }) => {
    const served = sandboxToV1alpha1(hub(mode));
    expect(served.apiVersion).toBe('agents.x-k8s.io/v1alpha1');
    expect(served.spec.replicas).toBe(replicas);
    expect(served.status?.replicas).toBe(replicas);
    expect(served.spec).not.toHaveProperty('operatingMode');
  });

  it('status.nodeName (v1beta1 only) is dropped, the rest of status is carried', () => {
    const served = sandboxToV1alpha1(hub('Running'));
    expect(served.status).toEqual({ podIPs: ['10.0.0.1'], replicas: 1 });
  });

  it('a hub without status gets no made-up v1alpha1 status', () => {
    expect(sandboxToV1alpha1(hub('Running', false))).not.toHaveProperty('status');
  });
});

describe('Sandbox v1beta1 → v1alpha1 restores from the state annotation (§3.4)', () => {
  it.each([
    {
      original: undefined,
      mode: 'Running',
      expected: undefined,
      title: 'original nil, Running → nil',
    },
    { original: 1, mode: 'Running', expected: 1, title: 'original 1, Running → 1' },
    { original: 0, mode: 'Running', expected: 1, title: 'original 0 resumed through v1beta1 → 1' },
    {
      original: 1,
      mode: 'Suspended',
      expected: 0,
      title: 'original 1 suspended through v1beta1 → 0',
    },
    { original: undefined, mode: 'Suspended', expected: 0, title: 'original nil suspended → 0' },
  ] as const)('$title', ({ original, mode, expected }) => {
    const served = sandboxToV1alpha1(hubFrom(alpha(original), mode));
    expect(served.spec.replicas).toBe(expected);
    expect(served.metadata.annotations).not.toHaveProperty(STATE);
  });

  it('quirk: status.replicas is the v1alpha1 writer’s value, not the hub’s mode', () => {
    const served = sandboxToV1alpha1(hubFrom(alpha(1, 0), 'Running'));
    expect(served.status?.replicas).toBe(0);
  });

  it('an original without status.replicas restores none (best effort removed)', () => {
    const served = sandboxToV1alpha1(hubFrom(alpha(1), 'Running'));
    expect(served.status).not.toHaveProperty('replicas');
  });

  it('a hub with an empty mode keeps the best effort replicas 1, as upstream’s switch does', () => {
    const stored = sandboxToV1beta1(alpha(undefined));
    const emptyMode = { ...stored, spec: { podTemplate } };
    expect(sandboxToV1alpha1(emptyMode).spec.replicas).toBe(1);
  });

  it('a state annotation that is not JSON is an InvalidState error', () => {
    const bad = hub('Running');
    const withBadState = { ...bad, metadata: meta('sb', { annotations: { [STATE]: '{oops' } }) };
    expect(() => sandboxToV1alpha1(withBadState)).toThrow(ConversionError);
    expect(() => sandboxToV1alpha1(withBadState)).toThrow(
      /^failed to unmarshal v1alpha1 Sandbox state: /,
    );
  });

  it('a state whose spec.replicas is not an integer is an InvalidState error', () => {
    const state = JSON.stringify({ spec: { replicas: 'one' } });
    const withBadState = {
      ...hub('Running'),
      metadata: meta('sb', { annotations: { [STATE]: state } }),
    };
    expect(() => sandboxToV1alpha1(withBadState)).toThrow(
      expect.objectContaining({ code: 'InvalidState' }) as Error,
    );
  });
});

describe('Sandbox state annotation (§3.4)', () => {
  it('is the v1alpha1 object minus its own state annotation, in its own key order', () => {
    const original = alpha(1, 1);
    const stored = sandboxToV1beta1(original);
    expect(stored.metadata.annotations?.[STATE]).toBe(JSON.stringify(original));
  });

  it('never nests: a stale state annotation on the v1alpha1 input is replaced, not embedded', () => {
    const original = alpha(1);
    const stale = deepFreeze({
      ...original,
      metadata: {
        ...original.metadata,
        annotations: { ...original.metadata.annotations, [STATE]: 'stale' },
      },
    });
    const state = sandboxToV1beta1(stale).metadata.annotations?.[STATE] ?? '';
    expect(state).toBe(JSON.stringify(original));
    expect(state).not.toContain('stale');
  });

  it('is deterministic: converting twice stores the same string', () => {
    expect(sandboxToV1beta1(alpha(0, 0))).toEqual(sandboxToV1beta1(alpha(0, 0)));
    expect(JSON.stringify(sandboxToV1beta1(alpha(0, 0)))).toBe(
      JSON.stringify(sandboxToV1beta1(alpha(0, 0))),
    );
  });

  it('status.nodeName is set empty (§3.4) even if a v1alpha1 client sent one', () => {
    const original = alpha(1);
    const sneaky = deepFreeze({ ...original, status: { ...original.status, nodeName: 'n' } });
    expect(sandboxToV1beta1(sneaky).status).not.toHaveProperty('nodeName');
  });

  it('v1alpha1 status.replicas does not reach the hub', () => {
    expect(sandboxToV1beta1(alpha(1, 1)).status).toEqual({ podIPs: ['10.0.0.1'] });
  });

  it('an unannotated v1alpha1 object comes back without an annotations map', () => {
    const bare = deepFreeze({ ...alpha(1), metadata: { name: 'bare', namespace: 'ns' } });
    expect(sandboxToV1alpha1(sandboxToV1beta1(bare)).metadata).toEqual({
      name: 'bare',
      namespace: 'ns',
    });
  });
});
