// The namespace gateway's fan-out (namespace-fanout.ts) over the embedded API server: a
// cluster-wide list is the namespaces' items at one resourceVersion; a merged watch carries every
// namespace's events, ends only once every stream ended, and says its first error — a refused
// namespace is the whole answer, a broken stream an ERROR event naming the namespace. Under a real
// informer (through a relay that ends, holds or drops one namespace's stream when the test says),
// no namespace's event is skipped when the merged watch ends with a stream behind another's.
import { startTestApiServer, type TestApiServer } from '@agent-sandbox/apiserver/testing';
import { eventually } from '@agent-sandbox/controllers/testing';
import {
  Informer,
  KubeClient,
  NAMESPACES,
  PODS,
  kubeConfigFromFile,
  type KubeConfig,
} from '@agent-sandbox/kube';
import type { KubeObject, Pod } from '@agent-sandbox/kube-types';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mergeWatch, type WatchPart } from './namespace-fanout.ts';
import { closeServer, startNamespaceProxy, type NamespaceProxy } from './namespace-proxy.ts';
import { startWatchRelay, type WatchRelay } from './watch-relay.ts';

let api: TestApiServer;
let upstream: KubeConfig;
let client: KubeClient;
let dir: string;
let proxy: NamespaceProxy;
let proxyUrl: string;

beforeAll(async () => {
  api = await startTestApiServer();
  upstream = kubeConfigFromFile(api.kubeconfigPath);
  client = new KubeClient({ config: upstream });
  for (const name of ['fan-a', 'fan-b', 'fan-other'])
    await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  dir = await mkdtemp(join(tmpdir(), 'asb-fanout-'));
  proxy = await startNamespaceProxy(upstream, ['fan-a', 'fan-b'], dir);
  proxyUrl = kubeConfigFromFile(proxy.kubeconfigPath).server;
});

afterAll(async () => {
  await proxy?.close();
  await client?.close();
  await api?.close();
  await rm(dir, { recursive: true, force: true });
});

const createPod = (namespace: string, name: string) =>
  client.create<Pod & KubeObject>(PODS, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace },
    spec: { containers: [{ name: 'c', image: 'busybox' }] },
  } as Pod & KubeObject);

interface WatchRead {
  status: number;
  /** Each line parsed, with when it came (ms after the request). */
  events: {
    at: number;
    type: string;
    object: { metadata?: { name?: string }; message?: string; code?: number };
  }[];
  /** When the stream ended (ms after the request). */
  endedAt: number;
}

/** Reads a whole watch (or answer) from `url`, once it is open calling `whileOpen`. */
async function readWatch(
  url: string,
  whileOpen: () => Promise<void> = async () => undefined,
): Promise<WatchRead> {
  const t0 = performance.now();
  const res = await fetch(url);
  const events: WatchRead['events'] = [];
  const during = whileOpen();
  const decoder = new TextDecoder();
  let partial = '';
  for await (const chunk of res.body ?? []) {
    const lines = (partial + decoder.decode(chunk as Uint8Array, { stream: true })).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines.filter((l) => l.trim() !== ''))
      events.push({
        at: performance.now() - t0,
        ...(JSON.parse(line) as Omit<WatchRead['events'][0], 'at'>),
      });
  }
  if (partial.trim() !== '')
    events.push({
      at: performance.now() - t0,
      ...(JSON.parse(partial) as Omit<WatchRead['events'][0], 'at'>),
    });
  await during;
  return { status: res.status, events, endedAt: performance.now() - t0 };
}

/** A gateway on :0 serving every request as one merged watch over `parts` of `from`. */
async function mergeGateway(
  from: KubeConfig,
  parts: readonly WatchPart[],
): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => mergeWatch(from, req, res, parts));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}

const names = (r: WatchRead, type: string) =>
  r.events.filter((e) => e.type === type).map((e) => e.object.metadata?.name);

describe('namespace fan-out', () => {
  it('lists the namespaces it sees as one list at one resourceVersion', async () => {
    await createPod('fan-a', 'list-a');
    await createPod('fan-b', 'list-b');
    await createPod('fan-other', 'list-other');
    const res = await fetch(`${proxyUrl}/api/v1/pods`);
    const list = (await res.json()) as { metadata: { resourceVersion: string }; items: Pod[] };
    expect(res.status).toBe(200);
    expect(list.items.map((p) => p.metadata?.name).sort()).toEqual(['list-a', 'list-b']);
    expect(list.metadata.resourceVersion).toMatch(/^\d+$/);
  });

  it('watches every namespace it sees through one stream', async () => {
    const r = await readWatch(`${proxyUrl}/api/v1/pods?watch=1&timeoutSeconds=2`, async () => {
      await new Promise((t) => setTimeout(t, 300));
      await createPod('fan-a', 'watch-a');
      await createPod('fan-b', 'watch-b');
      await createPod('fan-other', 'watch-other');
    });
    expect(r.status).toBe(200);
    const added = names(r, 'ADDED');
    expect(added).toEqual(expect.arrayContaining(['watch-a', 'watch-b']));
    expect(added).not.toContain('watch-other');
  });

  it('ends only once every stream ended: an event after the first ended still comes', async () => {
    const gw = await mergeGateway(upstream, [
      { namespace: 'fan-a', path: '/api/v1/namespaces/fan-a/pods?watch=1&timeoutSeconds=1' },
      { namespace: 'fan-b', path: '/api/v1/namespaces/fan-b/pods?watch=1&timeoutSeconds=3' },
    ]);
    try {
      const r = await readWatch(gw.url, async () => {
        await new Promise((t) => setTimeout(t, 1800)); // fan-a's stream ended by now
        await createPod('fan-b', 'after-first-end');
      });
      expect(r.status).toBe(200);
      expect(names(r, 'ADDED')).toContain('after-first-end');
      expect(r.endedAt).toBeGreaterThan(2500);
      // fan-a's stream ended before that event: whether fan-a had one in between is not known,
      // so the client lists again rather than watching on from after-first-end.
      expect(r.events.at(-1)).toMatchObject({ type: 'ERROR', object: { code: 410 } });
    } finally {
      await closeServer(gw.server);
    }
  });

  it('answers with the refusal of one namespace', async () => {
    const gw = await mergeGateway(upstream, [
      { namespace: 'fan-a', path: '/api/v1/namespaces/fan-a/pods?watch=1&timeoutSeconds=5' },
      { namespace: 'fan-b', path: '/api/v1/namespaces/fan-b/nopes?watch=1&timeoutSeconds=5' },
    ]);
    try {
      const r = await readWatch(gw.url);
      expect(r.status).toBe(404);
      expect(r.events).toHaveLength(1);
      expect(r.events[0]).toMatchObject({ kind: 'Status', code: 404 });
      expect(r.endedAt).toBeLessThan(4000); // fan-a's open stream was not waited for
    } finally {
      await closeServer(gw.server);
    }
  });

  it('ends with an ERROR event naming the namespace when a stream breaks', async () => {
    const other = await startTestApiServer();
    const gw = await mergeGateway(kubeConfigFromFile(other.kubeconfigPath), [
      { namespace: 'fan-a', path: '/api/v1/namespaces/fan-a/pods?watch=1&timeoutSeconds=30' },
      { namespace: 'fan-b', path: '/api/v1/namespaces/fan-b/pods?watch=1&timeoutSeconds=30' },
    ]);
    try {
      const r = await readWatch(gw.url, async () => {
        await new Promise((t) => setTimeout(t, 300));
        await other.close(); // drops both streams
      });
      expect(r.status).toBe(200);
      const last = r.events.at(-1);
      expect(last?.type).toBe('ERROR');
      expect(last?.object).toMatchObject({ kind: 'Status', code: 500 });
      expect(last?.object.message).toMatch(/^watch of namespace fan-[ab] broke: /);
      expect(r.events.filter((e) => e.type === 'ERROR')).toHaveLength(1);
    } finally {
      await closeServer(gw.server);
    }
  });
});

describe('namespace fan-out under an informer (the resume point)', () => {
  let relay: WatchRelay;
  let gateway: NamespaceProxy;
  let informer: Informer<Pod & KubeObject>;
  const stop = new AbortController();

  beforeAll(async () => {
    relay = await startWatchRelay(upstream, dir);
    await mkdir(join(dir, 'relayed'));
    gateway = await startNamespaceProxy(relay.config, ['fan-a', 'fan-b'], join(dir, 'relayed'));
    const config = kubeConfigFromFile(gateway.kubeconfigPath);
    informer = new Informer({ client: new KubeClient({ config }), resource: PODS });
    void informer.run(stop.signal);
    await informer.waitForSync();
  });

  afterAll(async () => {
    stop.abort();
    await gateway?.close();
    await relay?.close();
  });

  const cached = (ns: string, name: string) => informer.cache.get(`${ns}/${name}`);
  /** Creates `name` in `ns` and waits until the informer has it. */
  const seen = async (ns: string, name: string) => {
    await createPod(ns, name);
    await eventually(() => cached(ns, name));
  };

  it('misses no event of a namespace whose stream ended before the others', async () => {
    await Promise.all([relay.opened('fan-a'), relay.opened('fan-b')]);
    const relists = informer.relists;
    relay.end('fan-a'); // as at its timeoutSeconds: the merged watch goes on with fan-b
    await createPod('fan-a', 'ended-gap');
    await seen('fan-b', 'ended-later'); // a later resourceVersion, through fan-b's stream
    relay.end('fan-b'); // the merged watch ends; the informer watches again from what it has
    await seen('fan-a', 'ended-sentinel');
    expect(cached('fan-a', 'ended-gap')?.metadata.name).toBe('ended-gap');
    expect(informer.relists).toBe(relists + 1); // the merged watch's 410: it listed again
  });

  it('misses no event a stream still held when it dropped', async () => {
    await Promise.all([relay.opened('fan-a'), relay.opened('fan-b')]);
    const relists = informer.relists;
    relay.hold('fan-a'); // fan-a's events lag behind fan-b's
    await createPod('fan-a', 'held-gap');
    await seen('fan-b', 'held-later');
    relay.drop('fan-a'); // the connection breaks with held-gap never sent
    await seen('fan-a', 'held-sentinel');
    expect(cached('fan-a', 'held-gap')?.metadata.name).toBe('held-gap');
    expect(informer.relists).toBe(relists + 1);
  });
});
