// Test helper: start or reuse the real control plane of test/cluster for integration tests.
import { down, up } from '../cluster/src/cluster.ts';
import { optionsFromEnv, type ClusterOptions } from '../cluster/src/options.ts';

export interface ClusterHandle {
  /** Absolute path of the admin kubeconfig (client certificate, cluster-admin). */
  kubeconfig: string;
}

/**
 * Starts the harness cluster, or reuses the one `npm run cluster -- up` (or an earlier call)
 * left running. The first call on a fresh machine builds the binaries (minutes), so call it from
 * `beforeAll` under the cluster project's long hookTimeout. The cluster outlives the test run;
 * `npm run cluster -- down` stops it.
 */
export async function ensureCluster(
  overrides: Partial<ClusterOptions> = {},
): Promise<ClusterHandle> {
  const options = clusterOptions(overrides);
  const { kubeconfig } = await up(options, () => undefined);
  return { kubeconfig };
}

/** Stops the harness cluster and removes its data (the same as `npm run cluster -- down`). */
export async function stopCluster(overrides: Partial<ClusterOptions> = {}): Promise<void> {
  await down(clusterOptions(overrides), () => undefined);
}

/** The options the CLI would use, so tests and `npm run cluster` act on the same cluster. */
export function clusterOptions(overrides: Partial<ClusterOptions> = {}): ClusterOptions {
  return optionsFromEnv(process.env, overrides);
}
