// SandboxWarmPool conversion, spec §6.2: replicas pointer ⇄ value and the state annotation.
import { describe, expect, it } from 'vitest';
import type { SandboxWarmPool as SandboxWarmPoolV1alpha1 } from '../v1alpha1/sandbox-warm-pool.ts';
import type { SandboxWarmPool as SandboxWarmPoolV1beta1 } from '../v1beta1/sandbox-warm-pool.ts';
import { V1ALPHA1_SANDBOX_WARM_POOL_STATE_ANNOTATION as STATE } from './annotations.ts';
import { deepFreeze, meta } from './fixtures.ts';
import { sandboxWarmPoolToV1alpha1, sandboxWarmPoolToV1beta1 } from './sandbox-warm-pool.ts';

const sandboxTemplateRef = { name: 'python' };

function hub(replicas?: number): SandboxWarmPoolV1beta1 {
  return deepFreeze({
    apiVersion: 'extensions.agents.x-k8s.io/v1beta1',
    kind: 'SandboxWarmPool',
    metadata: meta('pool'),
    spec: { sandboxTemplateRef, ...(replicas === undefined ? {} : { replicas }) },
    status: { replicas: 2, readyReplicas: 1, selector: 's', observedGeneration: 7 },
  });
}

function alpha(replicas: number): SandboxWarmPoolV1alpha1 {
  return deepFreeze({
    apiVersion: 'extensions.agents.x-k8s.io/v1alpha1',
    kind: 'SandboxWarmPool',
    metadata: meta('pool'),
    spec: { replicas, sandboxTemplateRef },
    status: { replicas: 2, readyReplicas: 1, selector: 's' },
  });
}

describe('SandboxWarmPool v1beta1 → v1alpha1 (§6.2)', () => {
  it.each([
    { replicas: undefined, expected: 1, title: 'nil replicas → 1' },
    { replicas: 0, expected: 0, title: '0 → 0' },
    { replicas: 5, expected: 5, title: '5 → 5' },
  ])('$title', ({ replicas, expected }) => {
    const served = sandboxWarmPoolToV1alpha1(hub(replicas));
    expect(served.apiVersion).toBe('extensions.agents.x-k8s.io/v1alpha1');
    expect(served.spec).toEqual({ sandboxTemplateRef, replicas: expected });
  });

  it('lossy by spec: status.observedGeneration (v1beta1 only) is dropped', () => {
    expect(sandboxWarmPoolToV1alpha1(hub(1)).status).toEqual({
      replicas: 2,
      readyReplicas: 1,
      selector: 's',
    });
  });

  it('the state annotation is stripped and nothing is restored from it', () => {
    const state = JSON.stringify(alpha(9));
    const annotated = deepFreeze({
      ...hub(3),
      metadata: meta('pool', { annotations: { [STATE]: state } }),
    });
    const served = sandboxWarmPoolToV1alpha1(annotated);
    expect(served.spec.replicas).toBe(3);
    expect(served.metadata).not.toHaveProperty('annotations');
  });
});

describe('SandboxWarmPool v1alpha1 → v1beta1 (§6.2)', () => {
  it.each([0, 1, 4])('replicas %i is copied into the pointer and round-trips', (replicas) => {
    const original = alpha(replicas);
    const stored = sandboxWarmPoolToV1beta1(original);
    expect(stored.spec.replicas).toBe(replicas);
    expect(stored.metadata.annotations?.[STATE]).toBe(JSON.stringify(original));
    expect(sandboxWarmPoolToV1alpha1(stored)).toEqual(original);
  });

  it('observedGeneration is the controller’s: one sent through v1alpha1 does not reach the hub', () => {
    const original = alpha(1);
    const sneaky = deepFreeze({
      ...original,
      status: { ...original.status, observedGeneration: 9 },
    });
    expect(sandboxWarmPoolToV1beta1(sneaky).status).not.toHaveProperty('observedGeneration');
  });

  it('lossy: a nil hub replicas reads as 1 and is stored back as 1', () => {
    expect(sandboxWarmPoolToV1beta1(sandboxWarmPoolToV1alpha1(hub())).spec.replicas).toBe(1);
  });
});
