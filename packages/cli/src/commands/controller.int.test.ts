// `agent-sandbox controller` as a real child process against the embedded API server: ready,
// /metrics families, the leader Lease taken and released on SIGTERM, a Sandbox gets its Pod,
// bad flags exit 2 with the message.
import {
  readOurCrds,
  startTestApiServer,
  type TestApiServer,
} from '@agent-sandbox/apiserver/testing';
import { SANDBOXES } from '@agent-sandbox/controllers';
import { KubeClient, LEASES, PODS, kubeConfigFromFile } from '@agent-sandbox/kube';
import type { KubeObject } from '@agent-sandbox/kube-types';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEADER_ELECTION_ID } from './controller.ts';

const BIN = fileURLToPath(new URL('../../bin/agent-sandbox.js', import.meta.url));

let server: TestApiServer;
let client: KubeClient;
let collector: Server;
let collectorUrl: string;
/** Span names the fake OTLP/HTTP collector received. */
const exportedSpans: string[] = [];
/** The spans themselves (OTLP/JSON), for parent links and events. */
interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  events: { name: string }[];
}
const exportedSpanData: ExportedSpan[] = [];
beforeAll(async () => {
  collector = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      for (const m of body.matchAll(/"name":"([A-Za-z]+)","kind"/g)) exportedSpans.push(m[1] ?? '');
      const request = JSON.parse(body) as {
        resourceSpans: { scopeSpans: { spans: ExportedSpan[] }[] }[];
      };
      for (const rs of request.resourceSpans)
        for (const ss of rs.scopeSpans) exportedSpanData.push(...ss.spans);
      res.end('{}');
    });
  });
  await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
  collectorUrl = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
  server = await startTestApiServer({ crds: readOurCrds() });
  client = new KubeClient({ config: kubeConfigFromFile(server.kubeconfigPath) });
});
afterAll(async () => {
  collector?.close();
  await client?.close();
  await server?.close();
});

interface Running {
  child: ChildProcess;
  stderr: () => string;
  exited: Promise<number | null>;
}

function startController(args: string[], env: Record<string, string> = {}): Running {
  // These cases are about the manager; controller-webhook.int.test.ts covers the webhook.
  const child = spawn(process.execPath, [BIN, 'controller', '--enable-webhook=false', ...args], {
    env: { ...process.env, KUBECONFIG: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  child.stdout?.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stderr: () => err, exited };
}

async function until<T>(what: string, fn: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function servingAddresses(log: string): { metrics: string; probes: string } | undefined {
  for (const line of log.split('\n')) {
    if (!line.includes('"msg":"serving"')) continue;
    const rec = JSON.parse(line) as { metricsAddress: string; probeAddress: string };
    return { metrics: rec.metricsAddress, probes: rec.probeAddress };
  }
  return undefined;
}

describe('agent-sandbox controller (child process, embedded API server)', () => {
  it('becomes ready, serves metrics, holds the Lease, reconciles, traces, and exits 0 on SIGTERM releasing the Lease', async () => {
    const run = startController(
      [
        '--kubeconfig',
        server.kubeconfigPath,
        '--metrics-bind-address',
        '127.0.0.1:0',
        '--health-probe-bind-address=127.0.0.1:0',
        '--leader-elect=true',
        '--enable-tracing',
      ],
      { OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl },
    );
    try {
      const addr = await until('the serving log line', async () => servingAddresses(run.stderr()));
      await until('/readyz 200', async () => {
        const res = await fetch(`http://${addr.probes}/readyz`);
        return res.status === 200 ? true : undefined;
      });
      expect((await fetch(`http://${addr.probes}/healthz`)).status).toBe(200);

      const lease = await until('the leader Lease', async () => {
        const l = await client.get<KubeObject & { spec?: { holderIdentity?: string } }>(
          LEASES,
          'default',
          LEADER_ELECTION_ID,
        );
        return l.spec?.holderIdentity ? l : undefined;
      });
      expect(lease.spec?.holderIdentity).toBeTruthy();

      await client.create(SANDBOXES, {
        apiVersion: 'agents.x-k8s.io/v1beta1',
        kind: 'Sandbox',
        metadata: { name: 'cli-sb', namespace: 'default' },
        spec: { podTemplate: { spec: { containers: [{ name: 'main', image: 'busybox' }] } } },
      });
      const pod = await until('the Sandbox Pod', async () =>
        client.get<KubeObject>(PODS, 'default', 'cli-sb'),
      );
      expect(pod.metadata?.ownerReferences?.[0]?.kind).toBe('Sandbox');

      const text = await until('metrics with a reconcile', async () => {
        const t = await (await fetch(`http://${addr.metrics}/metrics`)).text();
        return t.includes('controller_runtime_reconcile_total{') ? t : undefined;
      });
      for (const family of [
        'controller_runtime_reconcile_total',
        'controller_runtime_reconcile_time_seconds',
        'workqueue_depth',
        'rest_client_requests_total',
        'leader_election_master_status',
        'agent_sandbox_claim_startup_latency_ms',
        'agent_sandbox_claim_controller_startup_latency_ms',
        'agent_sandbox_client_claim_startup_latency_ms',
        'agent_sandbox_creation_latency_ms',
        'agent_sandbox_claim_creation_total',
        'agent_sandboxes',
        'agent_sandbox_build_info',
      ])
        expect(text).toContain(`# TYPE ${family} `);
      expect(text).toMatch(/^agent_sandboxes\{namespace="default",ready_condition="(true|false)"/m);
      expect(text).toMatch(/^agent_sandbox_build_info\{.*git_version="0\.1\.0".*\} 1$/m);

      run.child.kill('SIGTERM');
      expect(await run.exited).toBe(0);
      const released = await client.get<KubeObject & { spec?: { holderIdentity?: string } }>(
        LEASES,
        'default',
        LEADER_ELECTION_ID,
      );
      expect(released.spec?.holderIdentity ?? '').toBe('');
      // Spans are flushed on shutdown.
      expect(exportedSpans).toContain('ReconcileSandbox');
      // The first pass stamped its trace on the Sandbox (§11.2 step 4); its children are there.
      const sandbox = await client.get<KubeObject>(SANDBOXES, 'default', 'cli-sb');
      const stamped = JSON.parse(
        sandbox.metadata.annotations?.['opentelemetry.io/trace-context'] ?? '{}',
      ) as { traceparent?: string };
      const first = exportedSpanData.find(
        (s) => s.name === 'ReconcileSandbox' && stamped.traceparent?.includes(s.spanId),
      );
      expect(stamped.traceparent).toBe(`00-${first?.traceId}-${first?.spanId}-01`);
      const children = exportedSpanData.filter((s) => s.parentSpanId === first?.spanId);
      const steps = children.filter((s) => s.name !== 'ReconcileSandbox');
      expect(steps.map((s) => s.name)).toEqual(['reconcilePVCs', 'reconcilePod']);
      expect(steps[1]?.events.map((e) => e.name)).toEqual(['NewPodStatusObserved']);
      // Every later pass joined the stamped trace as a child of the first.
      const passes = exportedSpanData.filter((s) => s.name === 'ReconcileSandbox');
      expect(passes.filter((s) => s !== first)).toEqual(
        children.filter((s) => s.name === 'ReconcileSandbox'),
      );
    } finally {
      if (run.child.exitCode === null) run.child.kill('SIGKILL');
    }
  });

  it('a standby takes the released Lease at once when the leader gets SIGTERM', async () => {
    const args = [
      `--kubeconfig=${server.kubeconfigPath}`,
      '--metrics-bind-address=0',
      '--health-probe-bind-address=0',
      '--leader-election-namespace=kube-system',
    ];
    const first = startController(args);
    const second = startController(args);
    try {
      const holder = async (): Promise<string> =>
        (
          await client.get<KubeObject & { spec?: { holderIdentity?: string } }>(
            LEASES,
            'kube-system',
            LEADER_ELECTION_ID,
          )
        ).spec?.holderIdentity ?? '';
      const leader = await until('a leader', async () => (await holder()) || undefined);
      await until('both started', async () =>
        first.stderr().includes('"msg":"serving"') && second.stderr().includes('"msg":"serving"')
          ? true
          : undefined,
      );
      // The Lease can name a holder before its 'acquired lease' line reaches our pipe; deciding
      // from a not-yet-flushed log used to SIGTERM the standby and wait for a takeover forever.
      const [active, standby] = await until('the leader to log its acquisition', async () => {
        if (first.stderr().includes('acquired lease')) return [first, second] as const;
        if (second.stderr().includes('acquired lease')) return [second, first] as const;
        return undefined;
      });
      expect(standby.stderr()).not.toContain('acquired lease');
      const releasedAt = Date.now();
      active.child.kill('SIGTERM');
      expect(await active.exited).toBe(0);
      const next = await until('the standby to lead', async () => {
        const h = await holder();
        return h && h !== leader ? h : undefined;
      });
      expect(next).not.toBe(leader);
      // A released Lease is taken on the standby's next retry (2 s), not after the 15 s lease.
      expect(Date.now() - releasedAt).toBeLessThan(10_000);
      standby.child.kill('SIGTERM');
      expect(await standby.exited).toBe(0);
    } finally {
      for (const r of [first, second]) if (r.child.exitCode === null) r.child.kill('SIGKILL');
    }
  });

  it('reads KUBECONFIG, runs without leader election, and exits 0 on SIGINT', async () => {
    const run = startController(
      [
        '--leader-elect=false',
        '--metrics-bind-address=0',
        '--health-probe-bind-address=127.0.0.1:0',
      ],
      { KUBECONFIG: server.kubeconfigPath },
    );
    try {
      const addr = await until('the serving log line', async () => servingAddresses(run.stderr()));
      expect(addr.metrics).toBeUndefined();
      await until('/readyz 200', async () => {
        const res = await fetch(`http://${addr.probes}/readyz`);
        return res.status === 200 ? true : undefined;
      });
      run.child.kill('SIGINT');
      expect(await run.exited).toBe(0);
      expect(run.stderr()).not.toContain('new leader observed');
    } finally {
      if (run.child.exitCode === null) run.child.kill('SIGKILL');
    }
  });

  it('exits 2 naming an unknown flag, and an invalid value with the fix', async () => {
    const unknown = startController(['--kube-api-bursts=3']);
    expect(await unknown.exited).toBe(2);
    expect(unknown.stderr()).toContain(
      'unknown flag --kube-api-bursts; did you mean --kube-api-burst?',
    );
    const invalid = startController(['--sandbox-concurrent-workers', '0']);
    expect(await invalid.exited).toBe(2);
    expect(invalid.stderr()).toContain(
      'invalid value "0" for flag --sandbox-concurrent-workers: must be greater than 0',
    );
  });

  it('exits 1 with a clear message when the kubeconfig cannot be read', async () => {
    const run = startController(['--kubeconfig', '/nonexistent/kubeconfig']);
    expect(await run.exited).toBe(1);
    expect(run.stderr()).toContain('/nonexistent/kubeconfig');
  });
});
