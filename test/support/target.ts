// test/ files' view of a test target (connectTarget in @agent-sandbox/controllers/testing): the
// target AGENT_SANDBOX_TEST_TARGET names by default, and the kubeconfig also loaded for
// @kubernetes/client-node.
import { KubeConfig } from '@kubernetes/client-node';
import {
  TEST_TARGETS,
  connectTarget as connectPackageTarget,
  type TargetHandle as PackageTargetHandle,
  type TestTarget,
} from '@agent-sandbox/controllers/testing';

export { TEST_TARGETS, type TestTarget };

export interface TargetHandle extends PackageTargetHandle {
  /** The same kubeconfig, loaded for @kubernetes/client-node. */
  kubeConfig: KubeConfig;
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
 * Starts or reuses the selected target: a fresh embedded API server with our CRDs, or the
 * harness cluster the cluster project's globalSetup started.
 */
export async function connectTarget(target: TestTarget = testTarget()): Promise<TargetHandle> {
  const handle = await connectPackageTarget(target);
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(handle.kubeconfigPath);
  return { ...handle, kubeConfig };
}
