// Which API server an integration suite runs against, chosen by AGENT_SANDBOX_TEST_TARGET, so one
// suite can prove the same behaviour on the real kube-apiserver and on our embedded one.
import { KubeConfig } from '@kubernetes/client-node';
import { ensureCluster } from './cluster.ts';

export const TEST_TARGETS = ['cluster', 'embedded'] as const;
export type TestTarget = (typeof TEST_TARGETS)[number];

export interface TargetHandle {
  target: TestTarget;
  /** Path of a kubeconfig for kubectl and other processes. */
  kubeconfigPath: string;
  /** The same kubeconfig, loaded for @kubernetes/client-node. */
  kubeConfig: KubeConfig;
}

/** AGENT_SANDBOX_TEST_TARGET, default `cluster` until the embedded API server exists. */
export function testTarget(env: NodeJS.ProcessEnv = process.env): TestTarget {
  const value = env.AGENT_SANDBOX_TEST_TARGET ?? 'cluster';
  if (!(TEST_TARGETS as readonly string[]).includes(value)) {
    throw new Error(
      `AGENT_SANDBOX_TEST_TARGET=${value} is not a test target; use one of ${TEST_TARGETS.join(', ')}`,
    );
  }
  return value as TestTarget;
}

/** Starts or reuses the selected target and returns how to reach it. */
export async function connectTarget(target: TestTarget = testTarget()): Promise<TargetHandle> {
  if (target === 'embedded') {
    throw new Error(
      'not implemented yet: the embedded API server is issue 4; run with AGENT_SANDBOX_TEST_TARGET=cluster',
    );
  }
  const { kubeconfig } = await ensureCluster();
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(kubeconfig);
  return { target, kubeconfigPath: kubeconfig, kubeConfig };
}
