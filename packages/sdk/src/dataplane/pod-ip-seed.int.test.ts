// The warm path's cheap cut: Sandbox.create() already saw the Pod IPs on the Ready claim
// (status.sandbox.podIPs), so the first command dials them without reading the Sandbox — one API
// round trip fewer between create() and the first output. The SDK talks to the real API server
// through a forwarding proxy on loopback that records every request line it passes on.
import { createServer, request, type Server } from 'node:http';
import { rm } from 'node:fs/promises';
// eslint-disable-next-line no-restricted-imports -- the test runs a real daemon
import type { SandboxdHandle } from '@agent-sandbox/sandboxd';
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

  it('create() → commands.run() reads no Sandbox: the claim named its Pod IPs', async () => {
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
    try {
      expect(sandbox.sandboxName).not.toBe(sandbox.id); // a warm member
      expect((await sandbox.commands.run('echo hi')).stdout).toBe('hi\n');
      const sandboxReads = seen.filter((l) =>
        l.startsWith(`GET /apis/agents.x-k8s.io/v1beta1/namespaces/${world.namespace}/sandboxes`),
      );
      expect(sandboxReads).toEqual([]);
      expect(seen.some((l) => l.includes('/sandboxclaims'))).toBe(true); // it did go through us
    } finally {
      await sandbox.kill();
      await sandbox.close();
    }
  });
});
