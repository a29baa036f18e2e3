// The cluster project's globalSetup: starts the harness cluster once, or reuses the one
// `npm run cluster -- up` left running, before any *.cluster.test.ts file runs, and provides its
// kubeconfig to every test (clusterKubeconfig() in @agent-sandbox/kube/testing). The first run on
// a fresh machine builds the binaries (minutes); globalSetup has no timeout to outgrow.
import { CLUSTER_KUBECONFIG } from '@agent-sandbox/kube/testing';
import type { TestProject } from 'vitest/node';
import { ensureCluster } from './cluster.ts';

export default async function setup(project: TestProject): Promise<void> {
  const { kubeconfig } = await ensureCluster();
  project.provide(CLUSTER_KUBECONFIG, kubeconfig);
}
