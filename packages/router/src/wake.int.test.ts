// Wake-on-request against the embedded API server with our CRDs: a request for a Suspended
// Sandbox resumes it (operatingMode Running) and is served once the Sandbox reports Ready with a
// Pod IP (the test plays the controller); a Sandbox that never gets Ready ends in a clear 504
// within the bounded wait; running Sandboxes are routed as before, with no wait. With wake off
// the router is upstream's: a suspended Sandbox has no Pod, so the request ends in upstream's 502
// and the Sandbox stays suspended; a Sandbox that cannot be resumed (API server gone) gets a 503.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeClient, kubeConfigFromFile, type ResourceRef } from '@agent-sandbox/kube';
import type { KubeObject } from '@agent-sandbox/kube-types';
// eslint-disable-next-line no-restricted-imports -- tests run on the embedded API server (our envtest)
import {
  readOurCrds,
  startTestApiServer,
  type TestApiServer,
} from '@agent-sandbox/apiserver/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRouter, type RunningRouter } from './router.ts';

const SANDBOXES: ResourceRef = {
  group: 'agents.x-k8s.io',
  version: 'v1beta1',
  plural: 'sandboxes',
  namespaced: true,
  kind: 'Sandbox',
};
type SandboxObject = KubeObject & { spec?: { operatingMode?: string }; status?: object };

let api: TestApiServer;
let client: KubeClient;
let backend: Server;
let backendPort: number;
let router: RunningRouter;
let plain: RunningRouter;
let served = 0;

beforeAll(async () => {
  api = await startTestApiServer({ crds: readOurCrds() });
  client = new KubeClient({ config: kubeConfigFromFile(api.kubeconfigPath) });
  backend = createServer((req, res) => {
    served++;
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ url: req.url }));
  });
  backend.listen(0, '127.0.0.1');
  await once(backend, 'listening');
  backendPort = (backend.address() as AddressInfo).port;
  router = await startRouter({
    proxy: { host: '127.0.0.1', port: 0 },
    client,
    cacheEnabled: true,
    allowLoopbackPodIp: true,
    upstreamMaxRetries: 0,
    wakeTimeoutMs: 1500,
  });
  // Wake off (the default): the same cache and resolve order as upstream.
  plain = await startRouter({
    proxy: { host: '127.0.0.1', port: 0 },
    client,
    cacheEnabled: true,
    allowLoopbackPodIp: true,
    upstreamMaxRetries: 0,
  });
}, 60_000);

afterAll(async () => {
  await plain?.close();
  await router?.close();
  backend?.close();
  await client?.close();
  await api?.close();
});

async function sandbox(name: string, operatingMode: 'Running' | 'Suspended'): Promise<void> {
  await client.create(SANDBOXES, {
    apiVersion: 'agents.x-k8s.io/v1beta1',
    kind: 'Sandbox',
    metadata: { name, namespace: 'default' },
    spec: {
      operatingMode,
      podTemplate: { spec: { containers: [{ name: 'c', image: 'busybox' }] } },
    },
  } as SandboxObject);
}

/** What the Sandbox controller reports once the Pod runs. */
async function markReady(name: string): Promise<void> {
  const s = await client.get<SandboxObject>(SANDBOXES, 'default', name);
  await client.updateStatus(SANDBOXES, {
    ...s,
    status: {
      podIPs: ['127.0.0.1'],
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'Ready',
          message: '',
          lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
        },
      ],
    },
  } as SandboxObject);
}

const headers = (id: string) => ({ 'x-sandbox-id': id, 'x-sandbox-port': String(backendPort) });

describe('wake-on-request', () => {
  it('resumes a suspended Sandbox and serves the request once it is Ready', async () => {
    await sandbox('sleepy', 'Suspended');
    await new Promise((r) => setTimeout(r, 200)); // the router's Sandbox informer sees it
    const before = served;
    const pending = fetch(`${router.proxyUrl}/hello?x=1`, { headers: headers('sleepy') });
    await expect
      .poll(
        async () =>
          (await client.get<SandboxObject>(SANDBOXES, 'default', 'sleepy')).spec?.operatingMode,
        { timeout: 5000, interval: 50 },
      )
      .toBe('Running');
    expect(served).toBe(before); // nothing reached the backend while it was not Ready
    await markReady('sleepy');
    const res = await pending;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ url: '/hello?x=1' });
    const metrics = await router.metrics.registry.getSingleMetricAsString(
      'sandbox_router_wakes_total',
    );
    expect(metrics).toContain(
      'sandbox_router_wakes_total{sandbox_namespace="default",outcome="ready"} 1',
    );
  });

  it('answers 504 with the reason when the Sandbox does not get Ready in time', async () => {
    await sandbox('stuck', 'Suspended');
    await new Promise((r) => setTimeout(r, 200));
    const started = Date.now();
    const res = await fetch(`${router.proxyUrl}/`, { headers: headers('stuck') });
    expect(res.status).toBe(504);
    expect(await res.json()).toEqual({
      detail: 'Sandbox default/stuck did not become ready within 1.5s',
    });
    expect(Date.now() - started).toBeLessThan(5000);
    const s = await client.get<SandboxObject>(SANDBOXES, 'default', 'stuck');
    expect(s.spec?.operatingMode).toBe('Running'); // resumed; it is the controller's turn
  });

  it('routes a running, Ready Sandbox at once and leaves unknown names to the resolver', async () => {
    await sandbox('awake', 'Running');
    await markReady('awake');
    await new Promise((r) => setTimeout(r, 200));
    const res = await fetch(`${router.proxyUrl}/x`, {
      headers: { ...headers('awake'), 'x-sandbox-pod-ip': '127.0.0.1' },
    });
    expect(res.status).toBe(200);
    // No such Sandbox: no wait, upstream's DNS fallback and its 502.
    const unknown = await fetch(`${router.proxyUrl}/`, { headers: headers('nobody') });
    expect(unknown.status).toBe(502);
    expect(await unknown.json()).toEqual({
      detail: 'Could not connect to the backend sandbox: nobody',
    });
  });
});

describe('wake-on-request off (upstream behaviour)', () => {
  it('answers a suspended Sandbox with upstream 502 and leaves it suspended', async () => {
    await sandbox('dormant', 'Suspended');
    await new Promise((r) => setTimeout(r, 200));
    const before = served;
    const res = await fetch(`${plain.proxyUrl}/`, { headers: headers('dormant') });
    expect(res.status).toBe(502);
    expect(await res.json()).toEqual({
      detail: 'Could not connect to the backend sandbox: dormant',
    });
    expect(served).toBe(before);
    const s = await client.get<SandboxObject>(SANDBOXES, 'default', 'dormant');
    expect(s.spec?.operatingMode).toBe('Suspended');
    const wakes = await plain.metrics.registry.getSingleMetricAsString(
      'sandbox_router_wakes_total',
    );
    expect(wakes).not.toContain('sandbox_namespace="default"');
  });
});

describe('wake-on-request when the Sandbox cannot be resumed', () => {
  it('answers 503 with the reason once the API server is gone', async () => {
    const lone = await startTestApiServer({ crds: readOurCrds() });
    const loneClient = new KubeClient({ config: kubeConfigFromFile(lone.kubeconfigPath) });
    await loneClient.create(SANDBOXES, {
      apiVersion: 'agents.x-k8s.io/v1beta1',
      kind: 'Sandbox',
      metadata: { name: 'orphan', namespace: 'default' },
      spec: {
        operatingMode: 'Suspended',
        podTemplate: { spec: { containers: [{ name: 'c', image: 'busybox' }] } },
      },
    } as SandboxObject);
    const waking = await startRouter({
      proxy: { host: '127.0.0.1', port: 0 },
      client: loneClient,
      cacheEnabled: true,
      allowLoopbackPodIp: true,
      upstreamMaxRetries: 0,
      wakeTimeoutMs: 1500,
    });
    try {
      await lone.close(); // the informer keeps its cached Sandbox; the resume patch cannot land
      const res = await fetch(`${waking.proxyUrl}/`, { headers: headers('orphan') });
      expect(res.status).toBe(503);
      const body = (await res.json()) as { detail: string };
      expect(body.detail).toMatch(
        /^Sandbox default\/orphan is suspended and could not be resumed: .+/,
      );
      const wakes = await waking.metrics.registry.getSingleMetricAsString(
        'sandbox_router_wakes_total',
      );
      expect(wakes).toContain(
        'sandbox_router_wakes_total{sandbox_namespace="default",outcome="failed"} 1',
      );
    } finally {
      await waking.close();
      await loneClient.close();
    }
  }, 30_000);
});
