// getHost(port): the URL of a server in the sandbox, in direct mode (the Pod IP; the scripted
// kubelet reports 127.0.0.1, where a real sandboxd runs the server) and through the real router's
// per-sandbox host names (`<port>-<sandbox>.<namespace>.<domain>`), which the test reaches as DNS
// would: a connection to the router with the URL's host in the Host header.
/* eslint-disable no-restricted-imports -- the test runs a real daemon and a real router */
import type { SandboxdHandle } from '@agent-sandbox/sandboxd';
import { startRouter, type RunningRouter } from '@agent-sandbox/router';
/* eslint-enable no-restricted-imports */
import { KubeClient, kubeConfigFromFile } from '@agent-sandbox/kube';
import { rm } from 'node:fs/promises';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidArgumentError, Sandbox, UnsupportedError, type CommandHandle } from '../index.ts';
import { startTestSandboxd } from '../testing/sandboxd.ts';
import { openSdkWorld, type SdkWorld } from '../testing/world.ts';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/** GET `url`, connecting to `connectTo` (host:port) when given, as a resolver would. */
function get(url: string, connectTo?: { host: string; port: number }): Promise<string> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: connectTo?.host ?? u.hostname,
        port: connectTo?.port ?? Number(u.port),
        path: `${u.pathname}${u.search}`,
        headers: { host: u.host },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve(`${res.statusCode} ${body}`));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('Sandbox.getHost', () => {
  let world: SdkWorld;
  let daemon: SandboxdHandle;
  let router: RunningRouter;
  let routerClient: KubeClient;
  let base: string;
  let sandbox: Sandbox;
  let server: CommandHandle;
  let port: number;
  beforeAll(async () => {
    world = await openSdkWorld();
    await world.createTemplate('tpl');
    await world.createPool('pool', 'tpl', 1);
    ({ daemon, base } = await startTestSandboxd('sdk-gethost-'));
    sandbox = await Sandbox.create({
      kubeconfig: world.kubeconfigPath,
      namespace: world.namespace,
      hostEnv: {},
      sandboxdPorts: {
        rest: Number(new URL(daemon.restUrl ?? '').port),
        grpc: Number(daemon.grpcAddress?.split(':').pop()),
      },
      warmPool: 'pool',
    });
    port = await freePort();
    const js = `require('http').createServer((q,s)=>s.end('hello from '+q.url)).listen(${port},'127.0.0.1',()=>console.log('listening'))`;
    server = await sandbox.commands.run(`'${process.execPath}' -e "${js}"`, { background: true });
    for (let i = 0; i < 100 && !server.stdout.includes('listening'); i++)
      await new Promise((r) => setTimeout(r, 50));
    routerClient = new KubeClient({ config: kubeConfigFromFile(world.kubeconfigPath) });
    router = await startRouter({
      proxy: { host: '127.0.0.1', port: 0 },
      client: routerClient,
      cacheEnabled: true,
      cacheNamespace: world.namespace,
      allowLoopbackPodIp: true,
      sandboxDomain: 'sbx.test',
    });
  });
  afterAll(async () => {
    await server?.kill().catch(() => undefined);
    await router?.close();
    await routerClient?.close();
    await sandbox?.kill();
    await sandbox?.close();
    await daemon?.close();
    await world?.close();
    if (base) await rm(base, { recursive: true, force: true });
  });

  it('is the Pod IP and port in direct mode, and serves what the sandbox listens on', async () => {
    const url = await sandbox.getHost(port);
    expect(url).toBe(`http://127.0.0.1:${port}`);
    expect(await get(`${url}/direct`)).toBe('200 hello from /direct');
  });

  it("is the router's per-sandbox host name with a router, and the router serves it", async () => {
    const viaRouter = await Sandbox.connect(sandbox.id, {
      kubeconfig: world.kubeconfigPath,
      namespace: world.namespace,
      hostEnv: {},
      routerUrl: router.proxyUrl,
      sandboxDomain: 'SBX.test',
    });
    try {
      const routerPort = Number(new URL(router.proxyUrl).port);
      const url = await viaRouter.getHost(port);
      expect(url).toBe(
        `http://${port}-${sandbox.sandboxName}.${world.namespace}.sbx.test:${routerPort}`,
      );
      expect(await get(`${url}/routed?x=1`, { host: '127.0.0.1', port: routerPort })).toBe(
        '200 hello from /routed?x=1',
      );
    } finally {
      await viaRouter.close();
    }
  });

  it('refuses bad ports, a router without its domain and a bad domain, naming the fix', async () => {
    await expect(sandbox.getHost(0)).rejects.toThrow(InvalidArgumentError);
    await expect(sandbox.getHost(70000)).rejects.toThrow(/port 70000 must be a port in 1-65535/);
    const noDomain = await Sandbox.connect(sandbox.id, {
      kubeconfig: world.kubeconfigPath,
      namespace: world.namespace,
      hostEnv: {},
      routerUrl: router.proxyUrl,
    });
    try {
      const err = await noDomain.getHost(port).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UnsupportedError);
      expect(String(err)).toMatch(/pass sandboxDomain or set AGENT_SANDBOX_SANDBOX_DOMAIN/);
    } finally {
      await noDomain.close();
    }
    await expect(
      Sandbox.connect(sandbox.id, {
        kubeconfig: world.kubeconfigPath,
        hostEnv: { AGENT_SANDBOX_SANDBOX_DOMAIN: 'bad_domain' },
      }),
    ).rejects.toThrow(/sandboxDomain "bad_domain" must be a DNS subdomain/);
  });
});
