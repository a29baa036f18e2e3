// Realistic SandboxClaims and SandboxWarmPools for the conversion tests (test support only),
// built like fixtures.ts: stored metadata plus the fields each version knows.
import type { SandboxClaim as SandboxClaimV1alpha1 } from '../v1alpha1/sandbox-claim.ts';
import type { SandboxWarmPool as SandboxWarmPoolV1alpha1 } from '../v1alpha1/sandbox-warm-pool.ts';
import type { SandboxClaim as SandboxClaimV1beta1 } from '../v1beta1/sandbox-claim.ts';
import type { SandboxWarmPool as SandboxWarmPoolV1beta1 } from '../v1beta1/sandbox-warm-pool.ts';
import { meta, ownerReferences, readyCondition } from './fixtures.ts';

const claimSpecExtras = {
  lifecycle: { shutdownPolicy: 'Delete' as const, shutdownTime: '2026-12-01T00:00:00Z' },
  additionalPodMetadata: {
    labels: { 'sandbox.users.io/user': 'alice' },
    annotations: { 'example.com/trace': 'on' },
  },
  env: [{ name: 'MODE', value: 'batch', containerName: 'agent' }],
};

export function v1alpha1Claims(): SandboxClaimV1alpha1[] {
  const base = { apiVersion: 'extensions.agents.x-k8s.io/v1alpha1', kind: 'SandboxClaim' };
  const bound = (sandbox: string) => ({
    conditions: [{ ...readyCondition, reason: 'DependenciesReady' }],
    sandbox: { name: sandbox, podIPs: ['10.244.2.4'] },
  });
  return [
    { ...base, metadata: meta('claim-default'), spec: { sandboxTemplateRef: { name: 'python' } } },
    {
      ...base,
      metadata: meta('claim-none'),
      spec: { sandboxTemplateRef: { name: 'python' }, warmpool: 'none', ...claimSpecExtras },
      status: bound('claim-none'),
    },
    {
      ...base,
      metadata: meta('claim-warm'),
      spec: { sandboxTemplateRef: { name: 'python' }, warmpool: 'default' },
      status: bound('python-pool-x7k2p'),
    },
    {
      ...base,
      metadata: meta('claim-specific', { ownerReferences }),
      spec: { sandboxTemplateRef: { name: 'gpu' }, warmpool: 'gpu-pool', ...claimSpecExtras },
      status: bound('gpu-pool-abcde'),
    },
    {
      ...base,
      metadata: meta('claim-empty-policy', { annotations: undefined }),
      spec: { sandboxTemplateRef: { name: 'python' }, warmpool: '' },
    },
  ];
}

export function v1beta1Claims(): SandboxClaimV1beta1[] {
  const base = { apiVersion: 'extensions.agents.x-k8s.io/v1beta1', kind: 'SandboxClaim' };
  return [
    {
      ...base,
      metadata: meta('hub-claim'),
      spec: { warmPoolRef: { name: 'python-pool' }, ...claimSpecExtras },
      status: {
        conditions: [readyCondition],
        sandbox: { name: 'python-pool-q9w8e', podIPs: ['10.244.3.3'] },
      },
    },
    {
      ...base,
      metadata: meta('hub-shadow'),
      spec: { warmPoolRef: { name: 'shadow-pool-python' } },
    },
  ];
}

export function v1alpha1Pools(): SandboxWarmPoolV1alpha1[] {
  const base = { apiVersion: 'extensions.agents.x-k8s.io/v1alpha1', kind: 'SandboxWarmPool' };
  return [
    {
      ...base,
      metadata: meta('python-pool'),
      spec: {
        replicas: 3,
        sandboxTemplateRef: { name: 'python' },
        updateStrategy: { type: 'Recreate' },
      },
      status: {
        replicas: 3,
        readyReplicas: 2,
        selector: 'agents.x-k8s.io/warm-pool-sandbox=91dd7983',
      },
    },
    {
      ...base,
      metadata: meta('shadow-pool-python', {
        annotations: {
          'agents.x-k8s.io/migration-shadow': 'true',
          'agents.x-k8s.io/migration-source-template': 'python',
        },
      }),
      spec: { replicas: 0, sandboxTemplateRef: { name: 'python' } },
    },
  ];
}

export function v1beta1Pools(): SandboxWarmPoolV1beta1[] {
  const base = { apiVersion: 'extensions.agents.x-k8s.io/v1beta1', kind: 'SandboxWarmPool' };
  return [
    {
      ...base,
      metadata: meta('hub-pool'),
      spec: {
        replicas: 2,
        sandboxTemplateRef: { name: 'python' },
        updateStrategy: { type: 'OnReplenish' },
      },
      status: {
        replicas: 2,
        readyReplicas: 2,
        selector: 'agents.x-k8s.io/warm-pool-sandbox=0badf00d',
      },
    },
    {
      ...base,
      metadata: meta('hub-zero'),
      spec: { replicas: 0, sandboxTemplateRef: { name: 'python' } },
    },
  ];
}
