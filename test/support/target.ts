// Which API server an integration suite runs against, chosen by AGENT_SANDBOX_TEST_TARGET, so one
// suite can prove the same behaviour on the real kube-apiserver and on our embedded one.
import { KubeConfig } from '@kubernetes/client-node';
import { readOurCrds, startTestApiServer } from '@agent-sandbox/apiserver/testing';
import { ensureCluster } from './cluster.ts';

export const TEST_TARGETS = ['cluster', 'embedded'] as const;
export type TestTarget = (typeof TEST_TARGETS)[number];

export interface TargetHandle {
  target: TestTarget;
  /** Path of a kubeconfig for kubectl and other processes. */
  kubeconfigPath: string;
  /** The same kubeconfig, loaded for @kubernetes/client-node. */
  kubeConfig: KubeConfig;
  /** True when kube-scheduler and kwok nodes run Pods; false when tests play the kubelet. */
  hasNodes: boolean;
  /** Stops what connectTarget started (the embedded server); the shared cluster stays up. */
  close(): Promise<void>;
}

/** AGENT_SANDBOX_TEST_TARGET, default `cluster`. */
export function testTarget(env: NodeJS.ProcessEnv = process.env): TestTarget {
  const value = env.AGENT_SANDBOX_TEST_TARGET ?? 'cluster';
  if (!(TEST_TARGETS as readonly string[]).includes(value)) {
    throw new Error(
      `AGENT_SANDBOX_TEST_TARGET=${value} is not a test target; use one of ${TEST_TARGETS.join(', ')}`,
    );
  }
  return value as TestTarget;
}

/**
 * Starts or reuses the selected target and returns how to reach it. `embedded` starts a fresh
 * in-memory embedded API server with our CRDs installed; `cluster` reuses the harness cluster.
 */
export async function connectTarget(target: TestTarget = testTarget()): Promise<TargetHandle> {
  if (target === 'embedded') {
    const server = await startTestApiServer({ crds: readOurCrds() });
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(server.kubeconfigPath);
    return {
      target,
      kubeconfigPath: server.kubeconfigPath,
      kubeConfig,
      hasNodes: false,
      close: () => server.close(),
    };
  }
  const { kubeconfig } = await ensureCluster();
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(kubeconfig);
  return {
    target,
    kubeconfigPath: kubeconfig,
    kubeConfig,
    hasNodes: true,
    close: () => Promise.resolve(),
  };
}
