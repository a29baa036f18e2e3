// The private harness cluster this benchmark runs on (test/cluster, started the way
// `npm run cluster -- up --nodes K` starts it), so the shared cluster other sessions test against
// is neither loaded nor touched. State dir and port base come from the environment as for the
// CLI, defaulting to /tmp/bench-ctl-state and 32460.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { clusterOptions, ensureCluster, stopCluster } from '../../test/support/cluster.ts';
import type { ClusterOptions } from '../../test/cluster/src/options.ts';
import { readOurCrds } from '@agent-sandbox/apiserver/testing';
import { clientFor, type Client } from '../apiserver/client.ts';

export const DEFAULT_STATE_DIR = '/tmp/bench-ctl-state';
export const DEFAULT_PORT_BASE = 32460;
/** kwok nodes of the harness advertise room for 110 pods each (test/cluster/src/nodes.ts). */
export const PODS_PER_NODE = 110;

export interface BenchCluster {
  kubeconfig: string;
  options: ClusterOptions;
  client: Client;
  /** Nodes after `up` (more than asked when a reused cluster still holds Pods). */
  nodes: number;
  /** Control-plane process ids by component name (etcd, kube-apiserver, …, kwok). */
  pids: Record<string, number>;
  stop(): Promise<void>;
}

/** Nodes for `sandboxes` pods with 10 % headroom, at least 10 (the harness default). */
export function nodesFor(sandboxes: number): number {
  return Math.max(10, Math.ceil((sandboxes * 1.1) / PODS_PER_NODE));
}

export async function startCluster(
  sandboxes: number,
  nodes: number,
  keep: boolean,
): Promise<BenchCluster> {
  process.env.AGENT_SANDBOX_CLUSTER_STATE ??= DEFAULT_STATE_DIR;
  process.env.AGENT_SANDBOX_CLUSTER_PORT_BASE ??= String(DEFAULT_PORT_BASE);
  const overrides: Partial<ClusterOptions> = { nodes };
  const options = clusterOptions(overrides);
  const { kubeconfig } = await ensureCluster(overrides);
  const client = clientFor('kube', kubeconfig);
  // A reused cluster (--keep-cluster) may still hold Pods that take node slots: add nodes.
  const existing = await podCount(client);
  if (existing > 0) {
    overrides.nodes = nodesFor(sandboxes + existing);
    if (overrides.nodes > nodes) await ensureCluster(overrides);
  }
  const state = JSON.parse(readFileSync(join(options.stateDir, 'cluster.json'), 'utf8')) as {
    processes?: { name: string; pid: number }[];
  };
  const pids: Record<string, number> = {};
  for (const p of state.processes ?? []) pids[p.name] = p.pid;
  await installCrds(client);
  return {
    kubeconfig,
    options,
    nodes: overrides.nodes ?? nodes,
    client,
    pids,
    stop: async () => {
      client.close();
      if (!keep) await stopCluster(overrides);
    },
  };
}

/**
 * Our CRDs, installed or updated in place when an earlier run left them. Both versions are served:
 * the harness runs our conversion webhook (test/cluster/README.md), so kube-apiserver's v1alpha1
 * watch cache converts the stored v1beta1 objects instead of relisting about once a second, as it
 * did without one (upstream's benchmarks mark v1alpha1 `served: false` for that reason, upstream
 * PR #1234). An update keeps the live webhook clientConfig, which the generated CRDs lack.
 */
async function installCrds(client: Client): Promise<void> {
  const path = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
  for (const crd of readOurCrds()) {
    const res = await client.request('POST', path, crd);
    if (res.status === 201) continue;
    if (res.status !== 409) throw new Error(`install CRD ${crd.metadata.name}: HTTP ${res.status}`);
    const existing = await client.request('GET', `${path}/${crd.metadata.name}`);
    const live = existing.body as {
      metadata?: { resourceVersion?: string };
      spec?: { conversion?: { webhook?: { clientConfig?: unknown } } };
    };
    const clientConfig = live.spec?.conversion?.webhook?.clientConfig;
    const webhook = crd.spec.conversion?.webhook;
    if (clientConfig && webhook) Object.assign(webhook, { clientConfig });
    const put = await client.request('PUT', `${path}/${crd.metadata.name}`, {
      ...crd,
      metadata: { ...crd.metadata, resourceVersion: live.metadata?.resourceVersion },
    });
    if (put.status !== 200) throw new Error(`update CRD ${crd.metadata.name}: HTTP ${put.status}`);
  }
  for (let i = 0; ; i++) {
    const res = await client.request('GET', '/apis/agents.x-k8s.io/v1beta1/sandboxes?limit=1');
    if (res.status === 200) return;
    if (i >= 100) throw new Error('the Sandbox CRD was not served within 10 s of installing it');
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Pods in the cluster, from one paginated list's remainingItemCount. */
async function podCount(client: Client): Promise<number> {
  const res = await client.request('GET', '/api/v1/pods?limit=1');
  const body = res.body as { items?: unknown[]; metadata?: { remainingItemCount?: number } };
  if (res.status !== 200) throw new Error(`list pods: HTTP ${res.status}`);
  return (body.items?.length ?? 0) + (body.metadata?.remainingItemCount ?? 0);
}

export async function createNamespace(client: Client, name: string): Promise<void> {
  const res = await client.request('POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name, labels: { 'bench.agent-sandbox.dev/run': 'controller' } },
  });
  if (res.status !== 201) throw new Error(`create namespace ${name}: HTTP ${res.status}`);
}

/** kube-apiserver's own /metrics text (the admin certificate may read it). */
export async function apiserverMetrics(client: Client): Promise<string> {
  const res = await client.request('GET', '/metrics');
  if (res.status !== 200 || typeof res.body !== 'string')
    throw new Error(`kube-apiserver /metrics: HTTP ${res.status}`);
  return res.body;
}
