// A toy ConfigMap controller on the real embedded API server: converges, is idempotent across
// manager restarts, retries with backoff, honours TerminalError and requeueAfter, and exposes
// probes and metrics over HTTP.
import type { ConfigMap, KubeObject } from '@agent-sandbox/kube-types';
// eslint-disable-next-line no-restricted-imports -- tests run on the embedded apiserver (our envtest)
import { startTestApiServer, type TestApiServer } from '@agent-sandbox/apiserver/testing';
import { CONFIG_MAPS, isNotFound, KubeClient, kubeConfigFromFile } from '@agent-sandbox/kube';
import { configMap } from '@agent-sandbox/kube/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Controller } from './controller.ts';
import { TerminalError } from './errors.ts';
import { Manager } from './manager.ts';
import { RuntimeMetrics } from './metrics.ts';
import type { Reconciler, Request } from './reconciler.ts';

type CM = ConfigMap & KubeObject;
const silent = pino({ level: 'silent' });

let server: TestApiServer;
let client: KubeClient;
beforeAll(async () => {
  server = await startTestApiServer();
  client = new KubeClient({ config: kubeConfigFromFile(server.kubeconfigPath) });
});
afterAll(async () => {
  await client?.close();
  await server?.close();
});

/** Copies label `copy` into data `copied`; counts writes. */
class CopyLabel implements Reconciler {
  writes = 0;
  reconciles = 0;
  constructor(private readonly c: KubeClient) {}
  async reconcile(req: Request): Promise<void> {
    this.reconciles++;
    let cm: CM;
    try {
      cm = await this.c.get<CM>(CONFIG_MAPS, req.namespace, req.name);
    } catch (err: unknown) {
      if (isNotFound(err)) return;
      throw err;
    }
    const want = cm.metadata.labels?.['copy'];
    if (want === undefined || cm.data?.['copied'] === want) return;
    await this.c.update(CONFIG_MAPS, { ...cm, data: { ...cm.data, copied: want } });
    this.writes++;
  }
}

async function until(cond: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const start = Date.now();
  while (!(await cond())) {
    if (Date.now() - start > timeoutMs) throw new Error(`condition not met in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function startManager(
  reconciler: Reconciler,
  extra: {
    namespace: string;
    concurrency?: number;
    addresses?: boolean;
    client?: KubeClient;
    metrics?: RuntimeMetrics;
  },
): { manager: Manager; stop: () => Promise<void> } {
  const manager = new Manager({
    client: extra.client ?? client,
    ...(extra.metrics ? { metrics: extra.metrics } : {}),
    logger: silent,
    namespace: extra.namespace,
    ...(extra.addresses
      ? { metricsBindAddress: '127.0.0.1:0', healthProbeBindAddress: '127.0.0.1:0' }
      : {}),
  });
  manager.add(
    new Controller({
      name: 'copy-label',
      for: CONFIG_MAPS,
      reconciler,
      concurrency: extra.concurrency ?? 4,
    }),
  );
  const ac = new AbortController();
  const running = manager.start(ac.signal);
  return {
    manager,
    stop: async () => {
      ac.abort();
      await running;
    },
  };
}

async function createNamespace(name: string): Promise<void> {
  await client.create(
    { group: '', version: 'v1', plural: 'namespaces', namespaced: false },
    {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name },
    },
  );
}

describe('Controller + Manager', () => {
  it('converges, and a restarted manager converges again without writing', async () => {
    await createNamespace('toy');
    for (let i = 0; i < 20; i++)
      await client.create(CONFIG_MAPS, configMap('toy', `cm-${i}`, { labels: { copy: `v${i}` } }));
    const first = new CopyLabel(client);
    const m1 = startManager(first, { namespace: 'toy' });
    const converged = async (): Promise<boolean> => {
      const list = await client.list<CM>(CONFIG_MAPS, 'toy');
      return list.items.every((cm) => cm.data?.['copied'] === cm.metadata.labels?.['copy']);
    };
    await until(converged);
    expect(first.writes).toBe(20);
    // a label change is picked up
    await client.patch(CONFIG_MAPS, 'toy', 'cm-3', {
      type: 'merge',
      body: { metadata: { labels: { copy: 'new' } } },
    });
    await until(
      async () => (await client.get<CM>(CONFIG_MAPS, 'toy', 'cm-3')).data?.['copied'] === 'new',
    );
    await m1.stop();
    const before = (await client.list(CONFIG_MAPS, 'toy')).metadata.resourceVersion;

    const second = new CopyLabel(client);
    const m2 = startManager(second, { namespace: 'toy' });
    await until(() => second.reconciles >= 20);
    await m2.stop();
    expect(second.writes).toBe(0);
    expect((await client.list(CONFIG_MAPS, 'toy')).metadata.resourceVersion).toBe(before);
  });

  it('retries thrown errors with backoff, stops on TerminalError, honours requeueAfterMs', async () => {
    await createNamespace('retry');
    await client.create(CONFIG_MAPS, configMap('retry', 'flaky'));
    await client.create(CONFIG_MAPS, configMap('retry', 'terminal'));
    await client.create(CONFIG_MAPS, configMap('retry', 'again'));
    const calls = new Map<string, number>();
    const reconciler: Reconciler = {
      async reconcile(req) {
        const n = (calls.get(req.name) ?? 0) + 1;
        calls.set(req.name, n);
        if (req.name === 'flaky' && n <= 2) throw new Error('transient');
        if (req.name === 'terminal') throw new TerminalError('cannot fix');
        if (req.name === 'again' && n < 3) return { requeueAfterMs: 50 };
        if (req.name === 'flaky' && n === 3) return;
        return undefined;
      },
    };
    const metrics = new RuntimeMetrics();
    const limited = new KubeClient({
      config: kubeConfigFromFile(server.kubeconfigPath),
      metrics: metrics.clientMetrics(),
      qps: 100,
      burst: 10,
    });
    const { manager, stop } = startManager(reconciler, {
      namespace: 'retry',
      addresses: true,
      client: limited,
      metrics,
    });
    await until(() => (calls.get('flaky') ?? 0) >= 3 && (calls.get('again') ?? 0) >= 3);
    await new Promise((r) => setTimeout(r, 200));
    expect(calls.get('terminal')).toBe(1);
    expect(calls.get('flaky')).toBe(3);
    expect(calls.get('again')).toBe(3);

    const { metrics: metricsAt, probes } = manager.addresses;
    const text = await (await fetch(`http://${metricsAt}/metrics`)).text();
    expect(text).toContain(
      'controller_runtime_reconcile_total{controller="copy-label",result="error"} 3',
    );
    expect(text).toContain(
      'controller_runtime_reconcile_total{controller="copy-label",result="requeue_after"} 2',
    );
    expect(text).toContain(
      'controller_runtime_terminal_reconcile_errors_total{controller="copy-label"} 1',
    );
    expect(text).toContain('workqueue_retries_total{name="copy-label",controller="copy-label"} 2');
    expect(text).toContain('controller_runtime_active_workers{controller="copy-label"} 0');
    expect(text).toMatch(
      /controller_runtime_reconcile_time_seconds_count\{controller="copy-label"\} \d+/,
    );
    expect(text).toMatch(
      /workqueue_queue_duration_seconds_bucket\{le="1e-8",name="copy-label",controller="copy-label"\}/,
    );
    expect(text).toMatch(
      /rest_client_requests_total\{code="200",method="GET",host="127\.0\.0\.1:\d+"\} [1-9]/,
    );
    expect(text).toMatch(
      /rest_client_rate_limiter_duration_seconds_count\{verb="GET",host="127\.0\.0\.1:\d+"\} [1-9]/,
    );
    const healthz = await fetch(`http://${probes}/healthz`);
    expect([healthz.status, await healthz.text()]).toEqual([200, 'ok']);
    const readyz = await fetch(`http://${probes}/readyz?verbose`);
    expect(await readyz.text()).toContain('[+]informers-synced ok');
    await stop();
    await expect(fetch(`http://${probes}/healthz`)).rejects.toThrow();
    await limited.close();
  });

  it('never reconciles one key concurrently', async () => {
    await createNamespace('serial');
    await client.create(CONFIG_MAPS, configMap('serial', 'one'));
    let active = 0;
    let maxActive = 0;
    let count = 0;
    let seen: string | undefined;
    const reconciler: Reconciler = {
      async reconcile(req, ctx) {
        ctx.tracer.startSpan('ReconcileSerial').end(); // no-op tracer without an SDK
        // The server also publishes kube-root-ca.crt into the namespace: another key, may overlap.
        if (req.name !== 'one') return;
        active++;
        maxActive = Math.max(maxActive, active);
        count++;
        // The read keeps the reconcile in flight long enough for events to pile up behind it,
        // and tells the test when a reconcile has run after the last patch.
        const cm = await client.get<CM>(CONFIG_MAPS, req.namespace, req.name);
        await new Promise((r) => setTimeout(r, 30));
        seen = cm.data?.['i'];
        active--;
      },
    };
    const { stop } = startManager(reconciler, { namespace: 'serial', concurrency: 8 });
    await until(() => count >= 1);
    for (let i = 0; i < 10; i++)
      await client.patch(CONFIG_MAPS, 'serial', 'one', {
        type: 'merge',
        body: { data: { i: String(i) } },
      });
    // A condition, not a sleep: with keep-alive the ten patches take a few ms, and under load
    // their watch events could all arrive after a fixed wait, leaving count at 1.
    await until(() => seen === '9');
    await stop();
    expect(maxActive).toBe(1);
    expect(count).toBeGreaterThan(1);
    expect(count).toBeLessThanOrEqual(11); // deduplicated while waiting
  });

  it('start() rejects with CacheSyncTimeout when the API server is unreachable', async () => {
    const dead = new KubeClient({
      config: { server: 'http://127.0.0.1:1', namespace: 'default', insecureSkipTlsVerify: false },
    });
    const manager = new Manager({ client: dead, logger: silent, cacheSyncTimeoutMs: 300 });
    manager.add(
      new Controller({ name: 'never', for: CONFIG_MAPS, reconciler: new CopyLabel(dead) }),
    );
    await expect(manager.start(new AbortController().signal)).rejects.toMatchObject({
      code: 'CacheSyncTimeout',
    });
    await dead.close();
  });
});
