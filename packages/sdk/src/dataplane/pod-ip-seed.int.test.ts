// The warm path's cheap cut: Sandbox.create() already saw the Pod IPs on the Ready claim
// (status.sandbox.podIPs), so the first command dials them without reading the Sandbox — one API
// round trip fewer between create() and the first output. The one read of the Sandbox is made
// while the adoption is in flight (to dial its daemon ahead), never after Ready. The SDK talks
// to the real API server through a forwarding proxy on loopback that records every request line
// it passes on.
import { createServer, request, type Server } from 'node:http';
import { rm } from 'node:fs/promises';
// eslint-disable-next-line no-restricted-imports -- the test runs a real daemon
import type { SandboxdHandle } from '@agent-sandbox/sandboxd';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sandbox } from '../index.ts';
import { startTestSandboxd } from '../testing/sandboxd.ts';
import { openSdkWorld, type SdkWorld } from '../testing/world.ts';

/** A plain-HTTP forwarding proxy to `target` that records `METHOD path` of each request. */
function recordingProxy(target: string, seen: string[]): Server {
  const upstream = new URL(target);
  return createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const out = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
}

describe('the Pod IP from the Ready claim', () => {
  let world: SdkWorld;
  let daemon: SandboxdHandle;
  let base: string;
  const seen: string[] = [];
  let proxy: Server;
  let proxyUrl: string;
  beforeAll(async () => {
    world = await openSdkWorld();
    await world.createTemplate('tpl');
    await world.createPool('pool', 'tpl', 1);
    ({ daemon, base } = await startTestSandboxd('sdk-ip-seed-'));
    proxy = recordingProxy(world.server.url, seen);
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    proxy?.closeAllConnections();
    await new Promise((r) => proxy?.close(r));
    await daemon?.close();
    await world?.close();
    if (base) await rm(base, { recursive: true, force: true });
  });

  it('create() → commands.run() reads no Sandbox after Ready: the claim named its Pod IPs', async () => {
    const sandbox = await Sandbox.create({
      apiServer: { url: proxyUrl },
      namespace: world.namespace,
      hostEnv: {},
      sandboxdPorts: {
        rest: Number(new URL(daemon.restUrl ?? '').port),
        grpc: Number(daemon.grpcAddress?.split(':').pop()),
      },
      warmPool: 'pool',
    });
    const afterReady = seen.length;
    try {
      expect(sandbox.sandboxName).not.toBe(sandbox.id); // a warm member
      expect((await sandbox.commands.run('echo hi')).stdout).toBe('hi\n');
      const sandboxReads = (from: number) =>
        seen
          .slice(from)
          .filter((l) =>
            l.startsWith(
              `GET /apis/agents.x-k8s.io/v1beta1/namespaces/${world.namespace}/sandboxes`,
            ),
          );
      expect(sandboxReads(afterReady)).toEqual([]);
      // At most the read that dialled ahead, during the adoption.
      expect(sandboxReads(0).length).toBeLessThanOrEqual(1);
      expect(seen.some((l) => l.includes('/sandboxclaims'))).toBe(true); // it did go through us
    } finally {
      await sandbox.kill();
      await sandbox.close();
    }
  });

  it('the spans carry the timeline: claim answered, assigned, Ready; start sent, started, output', async () => {
    const exporter = new InMemorySpanExporter();
    const tracerProvider = new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    const sandbox = await Sandbox.create({
      apiServer: { url: world.server.url },
      namespace: world.namespace,
      hostEnv: {},
      tracerProvider,
      sandboxdPorts: {
        rest: Number(new URL(daemon.restUrl ?? '').port),
        grpc: Number(daemon.grpcAddress?.split(':').pop()),
      },
      warmPool: 'pool',
    });
    try {
      await sandbox.commands.run('echo hi');
      const events = (name: string) =>
        exporter
          .getFinishedSpans()
          .find((s) => s.name === name)
          ?.events.map((e) => e.name)
          .filter((e) => e !== 'sandbox.daemon.dialling' && e !== 'sandbox.daemon.connected');
      // Dialling ahead races the adoption, so only the ordered points are compared exactly.
      expect(events('sandbox.create')).toEqual([
        'sandbox.claim.created',
        'sandbox.claim.assigned',
        'sandbox.ready',
      ]);
      expect(events('commands.run')).toEqual([
        'process.start.sent',
        'process.started',
        'process.output.first',
      ]);
    } finally {
      await sandbox.kill();
      await sandbox.close();
      await tracerProvider.shutdown();
    }
  });
});
