// Where a claims run happens: a private harness cluster with kwok nodes (bench/controller's
// cluster.ts, own state dir and port base), or the embedded API server in its own process with a
// scripted kubelet in the benchmark process (no node agent runs Pods there yet).
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { KubeClient, kubeConfigFromFile } from '@agent-sandbox/kube';
import { startScriptedKubelet } from '../../packages/controllers/src/testing/scripted-kubelet.ts';
import { startCluster } from '../controller/cluster.ts';

export interface ClaimsTarget {
  name: 'cluster' | 'embedded';
  kubeconfig: string;
  client: KubeClient;
  /** The API server's process id(s), for CPU. */
  pids: Record<string, number>;
  /** The API server's audit log of writes (embedded only), for writes per resource. */
  auditLog?: string;
  /** Starts whatever plays the kubelet for `namespace` (embedded only). */
  kubelet(namespace: string): { stop(): Promise<void> } | undefined;
  stop(): Promise<void>;
}

export async function clusterTarget(nodes: number, keep: boolean): Promise<ClaimsTarget> {
  process.env.AGENT_SANDBOX_CLUSTER_STATE ??= '/tmp/bench-claims-state';
  process.env.AGENT_SANDBOX_CLUSTER_PORT_BASE ??= '32560';
  const cluster = await startCluster(0, nodes, keep);
  const client = new KubeClient({ config: kubeConfigFromFile(cluster.kubeconfig) });
  const pids: Record<string, number> = {};
  for (const name of ['kube-apiserver', 'etcd'])
    if (cluster.pids[name]) pids[name] = cluster.pids[name];
  return {
    name: 'cluster',
    kubeconfig: cluster.kubeconfig,
    client,
    pids,
    kubelet: () => undefined,
    stop: async () => {
      await client.close();
      await cluster.stop();
    },
  };
}

const EMBEDDED = fileURLToPath(new URL('../apiserver/embedded-process.ts', import.meta.url));

export async function embeddedTarget(): Promise<ClaimsTarget> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-claims-'));
  const auditLog = join(dir, 'audit.log');
  const args = ['--import', 'tsx', EMBEDDED, '--dir', dir, '--audit-log', auditLog];
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`embedded API server exited with ${code}`)));
    createInterface({ input: child.stdout! }).once('line', resolve);
  });
  const { kubeconfig, pid } = JSON.parse(line) as { kubeconfig: string; pid: number };
  const config = kubeConfigFromFile(kubeconfig);
  // User agents apart from the manager's ('agent-sandbox'), so the audit log tells them apart.
  const client = new KubeClient({ config, userAgent: 'bench-claims' });
  const kubeletClient = new KubeClient({ config, userAgent: 'scripted-kubelet' });
  return {
    name: 'embedded',
    kubeconfig,
    client,
    pids: { 'embedded-apiserver': pid },
    auditLog,
    kubelet: (ns) => startScriptedKubelet(kubeletClient, ns),
    stop: async () => {
      await client.close();
      await kubeletClient.close();
      child.stdin?.end();
      child.kill('SIGTERM');
    },
  };
}
