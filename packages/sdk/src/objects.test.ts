import { describe, expect, it } from 'vitest';
import { claimTimeoutPatch, desiredClaim, desiredImageSandbox } from './objects.ts';
import type { ClaimObject } from './resources.ts';

const input = {
  name: 'sandbox-1',
  namespace: 'ns',
  labels: { team: 'a' },
  metadata: { 'x.io/k': 'v' },
  env: {},
  shutdownAt: undefined,
  now: new Date('2026-12-01T10:00:00.123Z'),
  traceContext: undefined,
};

describe('objects the SDK writes', () => {
  it('a claim is upstream-shaped: warmPoolRef, created-by, client-first-requested-at; no empty env or lifecycle', () => {
    expect(desiredClaim(input, 'pool')).toEqual({
      apiVersion: 'extensions.agents.x-k8s.io/v1beta1',
      kind: 'SandboxClaim',
      metadata: {
        name: 'sandbox-1',
        namespace: 'ns',
        labels: { team: 'a', 'agents.x-k8s.io/created-by': 'typescript-client' },
        annotations: {
          'x.io/k': 'v',
          'agents.x-k8s.io/client-first-requested-at': '2026-12-01T10:00:00.123Z',
        },
      },
      spec: { warmPoolRef: { name: 'pool' } },
    });
  });
  it('timeouts become second-precision shutdownTimes with policy Delete; env becomes a list', () => {
    const at = new Date('2026-12-01T10:10:00.999Z');
    const claim = desiredClaim({ ...input, env: { A: '1' }, shutdownAt: at }, 'pool');
    expect(claim.spec.lifecycle).toEqual({
      shutdownTime: '2026-12-01T10:10:00Z',
      shutdownPolicy: 'Delete',
    });
    expect(claim.spec.env).toEqual([{ name: 'A', value: '1' }]);
    const sandbox = desiredImageSandbox({ ...input, env: { A: '1' }, shutdownAt: at }, 'img');
    expect(sandbox.spec).toMatchObject({
      shutdownTime: '2026-12-01T10:10:00Z',
      shutdownPolicy: 'Delete',
    });
    expect(sandbox.spec.podTemplate.spec.containers).toEqual([
      { name: 'sandbox', image: 'img', env: [{ name: 'A', value: '1' }] },
    ]);
  });
  it('setTimeout keeps a claim policy the user chose', () => {
    const claim = {
      spec: { warmPoolRef: { name: 'p' }, lifecycle: { shutdownPolicy: 'Retain' } },
    } as ClaimObject;
    expect(claimTimeoutPatch(claim, new Date('2026-12-01T00:00:00Z'))).toEqual({
      spec: { lifecycle: { shutdownTime: '2026-12-01T00:00:00Z', shutdownPolicy: 'Retain' } },
    });
  });
});
