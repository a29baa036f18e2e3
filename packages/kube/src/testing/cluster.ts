// The harness cluster for *.cluster.test.ts files: the cluster project's globalSetup
// (test/support/cluster-setup.ts) starts or reuses the real control plane once and provides its
// admin kubeconfig under CLUSTER_KUBECONFIG, so package tests never import the repository's
// test/ folder to reach it.
import { inject } from 'vitest';

/** The key under which the cluster project's globalSetup provides the harness's kubeconfig. */
export const CLUSTER_KUBECONFIG = 'agentSandboxClusterKubeconfig';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Absolute path of the harness cluster's admin kubeconfig; only in the cluster project. */
    [CLUSTER_KUBECONFIG]?: string;
  }
}

/**
 * The harness cluster's admin kubeconfig path, as the cluster project's globalSetup provided it.
 * Throws, naming the fix, in a project without that setup (unit, integration).
 */
export function clusterKubeconfig(): string {
  const path = inject(CLUSTER_KUBECONFIG);
  if (path === undefined || path === '') {
    throw new Error(
      'no harness cluster here: it is provided by the vitest project "cluster" (globalSetup ' +
        'test/support/cluster-setup.ts); name the test *.cluster.test.ts and run it with ' +
        '`npx vitest run --project cluster`',
    );
  }
  return path;
}
