// The in-server endpointslice and endpoints controllers through the real server: Pods with an IP
// on a node become endpoints of the Services selecting them, with readiness, resolved ports and
// kube's labels; changes, deletions and edits of the published objects converge.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApiServer, type TestApiServer } from '../../testing/test-server.ts';
import { eventually, TestClient, type TestObject } from '../test-client.ts';

const NS = 'eps';
const SLICES = `/apis/discovery.k8s.io/v1/namespaces/${NS}/endpointslices`;
const PODS = `/api/v1/namespaces/${NS}/pods`;
const SERVICES = `/api/v1/namespaces/${NS}/services`;
const ENDPOINTS = `/api/v1/namespaces/${NS}/endpoints`;

interface Slice extends TestObject {
  endpoints:
    { addresses: string[]; conditions: Record<string, boolean>; nodeName?: string }[] | null;
  ports: { name: string; port: number; protocol: string }[] | null;
}

describe('endpoint controllers', () => {
  let s: TestApiServer;
  let c: TestClient;

  beforeAll(async () => {
    s = await startTestApiServer();
    c = new TestClient(s.url);
    await c.createNamespace(NS);
  });
  afterAll(async () => {
    await s.close();
  });

  async function pod(
    name: string,
    ip: string,
    ready: boolean,
    labels = { app: 'web' },
  ): Promise<void> {
    await c.create(PODS, {
      metadata: { name, labels },
      spec: {
        nodeName: 'node-a',
        containers: [{ name: 'c', image: 'x', ports: [{ name: 'http', containerPort: 8080 }] }],
      },
    });
    const res = await c.request('PUT', `${PODS}/${name}/status`, {
      ...(await c.get(`${PODS}/${name}`)).body,
      status: {
        phase: 'Running',
        podIP: ip,
        conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
      },
    });
    expect(res.status).toBe(200);
  }

  async function slicesOf(svc: string): Promise<Slice[]> {
    const res = await c.get(`${SLICES}?labelSelector=kubernetes.io/service-name%3D${svc}`);
    return res.body['items'] as Slice[];
  }

  const addresses = (slices: Slice[]) =>
    slices
      .flatMap((x) => (x.endpoints ?? []).map((e) => `${e.addresses[0]}:${e.conditions['ready']}`))
      .sort();

  it('publishes matching Pods with IPs as slices and Endpoints, ports resolved by name or number', async () => {
    await pod('a', '10.0.0.1', true);
    await pod('b', '10.0.0.2', false);
    await pod('other', '10.0.0.3', true, { app: 'other' });
    await c.create(SERVICES, {
      metadata: { name: 'web', labels: { team: 'x' } },
      spec: {
        selector: { app: 'web' },
        ports: [
          { name: 'http', port: 80, targetPort: 'http' },
          { name: 'raw', port: 81, targetPort: 9090 },
        ],
      },
    });
    await eventually('two endpoints', async () => addresses(await slicesOf('web')).length === 2);
    const [slice] = await slicesOf('web');
    expect(addresses(await slicesOf('web'))).toEqual(['10.0.0.1:true', '10.0.0.2:false']);
    expect(slice?.ports).toEqual([
      { name: 'http', protocol: 'TCP', port: 8080 },
      { name: 'raw', protocol: 'TCP', port: 9090 },
    ]);
    expect(slice?.metadata.labels).toEqual({
      team: 'x',
      'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io',
      'kubernetes.io/service-name': 'web',
    });
    expect(slice?.metadata.ownerReferences?.[0]).toMatchObject({
      kind: 'Service',
      name: 'web',
      controller: true,
    });
    const ep = (await c.get(`${ENDPOINTS}/web`)).body;
    const subsets = ep['subsets'] as {
      addresses: { ip: string }[];
      notReadyAddresses: { ip: string }[];
    }[];
    expect(subsets[0]?.addresses.map((a) => a.ip)).toEqual(['10.0.0.1']);
    expect(subsets[0]?.notReadyAddresses.map((a) => a.ip)).toEqual(['10.0.0.2']);
  });

  it('follows readiness, Pod deletion and repairs edited or deleted slices', async () => {
    await c.update(`${PODS}/b/status`, (p) => {
      p['status'] = { ...(p['status'] as object), conditions: [{ type: 'Ready', status: 'True' }] };
    });
    await eventually('b ready', async () =>
      addresses(await slicesOf('web')).includes('10.0.0.2:true'),
    );
    // A graceful DELETE leaves a bound Pod terminating (not ready, still serving) until its
    // kubelet removes it; no kubelet runs node-a, so the test removes it as one would.
    expect((await c.delete(`${PODS}/a`)).status).toBe(200);
    await eventually('a terminating', async () =>
      addresses(await slicesOf('web')).includes('10.0.0.1:false'),
    );
    expect((await c.delete(`${PODS}/a`, { gracePeriodSeconds: 0 })).status).toBe(200);
    await eventually(
      'a gone',
      async () => addresses(await slicesOf('web')).join() === '10.0.0.2:true',
    );
    const [slice] = await slicesOf('web');
    const name = slice?.metadata.name ?? '';
    await c.update(`${SLICES}/${name}`, (x) => {
      x['endpoints'] = [{ addresses: ['10.9.9.9'] }];
    });
    await eventually(
      'repaired',
      async () => addresses(await slicesOf('web')).join() === '10.0.0.2:true',
    );
    await c.delete(`${SLICES}/${name}`);
    await eventually('recreated', async () => {
      const now = await slicesOf('web');
      return now.length === 1 && now[0]?.metadata.name !== name && addresses(now).length === 1;
    });
  });

  it('keeps a placeholder for no Pods, nothing for Services without a selector, and cleans up', async () => {
    await c.create(SERVICES, {
      metadata: { name: 'none' },
      spec: { selector: { app: 'nobody' }, ports: [{ port: 80 }] },
    });
    await c.create(SERVICES, { metadata: { name: 'manual' }, spec: { ports: [{ port: 80 }] } });
    await eventually('placeholder', async () => (await slicesOf('none')).length === 1);
    const [placeholder] = await slicesOf('none');
    expect(placeholder?.endpoints).toBeNull();
    expect(placeholder?.ports).toBeNull();
    expect(await slicesOf('manual')).toEqual([]);
    expect(await c.exists(`${ENDPOINTS}/manual`)).toBe(false);
    await c.delete(`${SERVICES}/web`);
    await eventually(
      'web slices and Endpoints gone',
      async () => (await slicesOf('web')).length === 0 && !(await c.exists(`${ENDPOINTS}/web`)),
    );
  });

  it('replaces the slices of a Service recreated under the same name', async () => {
    const spec = { selector: { app: 'nobody' }, ports: [{ port: 80 }] };
    await c.create(SERVICES, { metadata: { name: 'again' }, spec });
    await eventually('placeholder', async () => (await slicesOf('again')).length === 1);
    await c.delete(`${SERVICES}/again`);
    const second = await c.create(SERVICES, { metadata: { name: 'again' }, spec });
    await eventually('one slice owned by the new Service', async () => {
      const slices = await slicesOf('again');
      return (
        slices.length === 1 && slices[0]?.metadata.ownerReferences?.[0]?.uid === second.metadata.uid
      );
    });
  });
});
