// `agent-sandbox controller --extensions` as a real child process against the embedded API
// server: the template gets its NetworkPolicy, the pool its member and status, a claim its
// Sandbox, and /metrics the claim counter and the extension controllers' reconcile counts.
import {
  readOurCrds,
  startTestApiServer,
  type TestApiServer,
} from '@agent-sandbox/apiserver/testing';
import {
  NETWORK_POLICIES,
  SANDBOX_CLAIMS,
  SANDBOX_TEMPLATES,
  SANDBOX_WARM_POOLS,
} from '@agent-sandbox/controllers';
import { KubeClient, NAMESPACES, kubeConfigFromFile } from '@agent-sandbox/kube';
import type { KubeObject } from '@agent-sandbox/kube-types';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../../bin/agent-sandbox.js', import.meta.url));
const GROUP = 'extensions.agents.x-k8s.io/v1beta1';

let server: TestApiServer;
let client: KubeClient;
beforeAll(async () => {
  server = await startTestApiServer({ crds: readOurCrds() });
  client = new KubeClient({ config: kubeConfigFromFile(server.kubeconfigPath) });
});
afterAll(async () => {
  await client?.close();
  await server?.close();
});

async function until<T>(what: string, fn: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

type Obj = KubeObject & { status?: Record<string, unknown> };

describe('agent-sandbox controller --extensions (child process, embedded API server)', () => {
  it('runs the SandboxTemplate, SandboxWarmPool and SandboxClaim controllers', async () => {
    const child = spawn(
      process.execPath,
      [
        BIN,
        'controller',
        '--enable-webhook=false',
        '--leader-elect=false',
        '--extensions',
        '--sandbox-warm-pool-max-batch-size=2',
        `--kubeconfig=${server.kubeconfigPath}`,
        '--metrics-bind-address=127.0.0.1:0',
        '--health-probe-bind-address=0',
      ],
      { env: { ...process.env, KUBECONFIG: '' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let log = '';
    child.stderr.on('data', (d: Buffer) => (log += d.toString()));
    child.stdout.on('data', (d: Buffer) => (log += d.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    try {
      const ns = 'ext';
      await client.create(NAMESPACES, {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: ns },
      });
      await client.create(SANDBOX_TEMPLATES, {
        apiVersion: GROUP,
        kind: 'SandboxTemplate',
        metadata: { name: 'tpl', namespace: ns },
        spec: { podTemplate: { spec: { containers: [{ name: 'main', image: 'busybox' }] } } },
      } as KubeObject);
      await client.create(SANDBOX_WARM_POOLS, {
        apiVersion: GROUP,
        kind: 'SandboxWarmPool',
        metadata: { name: 'pool', namespace: ns },
        spec: { sandboxTemplateRef: { name: 'tpl' }, replicas: 3 },
      } as KubeObject);
      await until('the NetworkPolicy', () =>
        client.get(NETWORK_POLICIES, ns, 'tpl-network-policy'),
      );
      const pool = await until('three pool members', async () => {
        const p = await client.get<Obj>(SANDBOX_WARM_POOLS, ns, 'pool');
        return p.status?.['replicas'] === 3 ? p : undefined;
      });
      expect(pool.status?.['selector']).toMatch(/^agents\.x-k8s\.io\/warm-pool-sandbox=/);
      await client.create(SANDBOX_CLAIMS, {
        apiVersion: GROUP,
        kind: 'SandboxClaim',
        metadata: { name: 'claim', namespace: ns },
        spec: { warmPoolRef: { name: 'pool' } },
      } as KubeObject);
      // No kubelet runs here, so no member has an IP: after the 2 s grace the claim goes cold.
      const claim = await until('the claim bound', async () => {
        const c = await client.get<Obj>(SANDBOX_CLAIMS, ns, 'claim');
        const bound = (c.status?.['sandbox'] as { name?: string } | undefined)?.name;
        return bound ? c : undefined;
      });
      expect((claim.status?.['sandbox'] as { name: string }).name).toBe('claim');
      const address = await until('the metrics address', async () => {
        const line = log.split('\n').find((l) => l.includes('"msg":"serving"'));
        return line ? (JSON.parse(line) as { metricsAddress: string }).metricsAddress : undefined;
      });
      const metrics = await (await fetch(`http://${address}/metrics`)).text();
      expect(metrics).toMatch(
        /agent_sandbox_claim_creation_total\{[^}]*launch_type="cold"[^}]*warmpool_name="pool"[^}]*\} 1/,
      );
      for (const name of ['sandboxclaim', 'sandboxwarmpool', 'sandboxtemplate']) {
        expect(metrics).toMatch(
          new RegExp(`controller_runtime_reconcile_total\\{[^}]*controller="${name}"`),
        );
      }
    } finally {
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  }, 60_000);
});
