// Which API server a scenario suite runs against, so one suite proves the same behaviour on the
// real kube-apiserver and on our embedded one (the cluster's kubeconfig comes from the cluster
// project's globalSetup through clusterKubeconfig()).
// eslint-disable-next-line no-restricted-imports -- the embedded target is the test API server
import { readOurCrds, startTestApiServer } from '@agent-sandbox/apiserver/testing';
import { CONTROLLER_MANAGER_USER } from '@agent-sandbox/api';
import { clusterKubeconfig } from '@agent-sandbox/kube/testing';
import { randomBytes } from 'node:crypto';

export const TEST_TARGETS = ['cluster', 'embedded'] as const;
export type TestTarget = (typeof TEST_TARGETS)[number];

export interface TargetHandle {
  target: TestTarget;
  /** Path of a kubeconfig for KubeClient, kubectl and other processes. */
  kubeconfigPath: string;
  /** True when kube-scheduler and kwok nodes run Pods; false when tests play the kubelet. */
  hasNodes: boolean;
  /**
   * Embedded only: the controller manager's own user (ADR 0027), authenticated by a static
   * token this server alone knows, as `up` runs it. The cluster uses a ServiceAccount instead.
   */
  controllerUser?: { username: string; token: string };
  /** Stops what connectTarget started (the embedded server); the shared cluster stays up. */
  close(): Promise<void>;
}

/**
 * Connects to `target`: `embedded` starts a fresh in-memory embedded API server with our CRDs
 * installed; `cluster` uses the harness cluster the cluster project's globalSetup started.
 */
export async function connectTarget(target: TestTarget): Promise<TargetHandle> {
  if (target === 'embedded') {
    const controllerUser = {
      username: CONTROLLER_MANAGER_USER,
      token: randomBytes(32).toString('base64url'),
    };
    const server = await startTestApiServer({
      crds: readOurCrds(),
      users: [
        {
          token: controllerUser.token,
          user: { username: controllerUser.username, groups: ['system:authenticated'] },
        },
      ],
    });
    return {
      target,
      kubeconfigPath: server.kubeconfigPath,
      controllerUser,
      hasNodes: false,
      close: () => server.close(),
    };
  }
  return {
    target,
    kubeconfigPath: clusterKubeconfig(),
    hasNodes: true,
    close: () => Promise.resolve(),
  };
}
