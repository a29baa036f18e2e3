// Must show (issue 4): a @kubernetes/client-node informer stays in sync through restarts of the
// embedded API server. The server runs on a temp database file and a fixed port; stopping it
// ends the informer's watch, the informer restarts itself on error (client-node's documented
// pattern) and resumes from its last resourceVersion, which the restarted server still serves.
// Changes made while the informer could not see the server are replayed from the revision log,
// and after compaction the watch gets 410 and the informer relists.
import {
  CoreV1Api,
  KubeConfig,
  makeInformer,
  type Informer,
  type ObjectCache,
  type V1ConfigMap,
} from '@kubernetes/client-node';
import { kubeconfigFor } from '@agent-sandbox/apiserver/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import {
  eventually,
  freePort,
  startServerOn,
  uniqueName,
  type RunningServer as Running,
} from './support.ts';

/** An informer on the ConfigMaps of `namespace` that records events, lists and errors. */
class TrackedInformer {
  readonly events: string[] = [];
  lists = 0;
  errors = 0;
  #closed = false;
  readonly #informer: Informer<V1ConfigMap> & ObjectCache<V1ConfigMap>;

  constructor(url: string, namespace: string) {
    const kc = new KubeConfig();
    kc.loadFromString(kubeconfigFor(url));
    const core = kc.makeApiClient(CoreV1Api);
    this.#informer = makeInformer<V1ConfigMap>(
      kc,
      `/api/v1/namespaces/${namespace}/configmaps`,
      () => {
        this.lists++;
        return core.listNamespacedConfigMap({ namespace });
      },
    );
    const record = (verb: string) => (cm: V1ConfigMap) =>
      this.events.push(`${verb} ${cm.metadata?.name} ${cm.data?.v ?? ''}`.trim());
    this.#informer.on('add', record('add'));
    this.#informer.on('update', record('update'));
    this.#informer.on('delete', record('delete'));
    this.#informer.on('error', () => {
      this.errors++;
      setTimeout(() => {
        if (!this.#closed) void this.#informer.start();
      }, 100);
    });
  }

  start(): Promise<void> {
    return this.#informer.start();
  }

  /** name=value of every cached ConfigMap, sorted. */
  cache(): string[] {
    return this.#informer
      .list()
      .map((cm) => `${cm.metadata?.name}=${cm.data?.v ?? ''}`)
      .sort();
  }

  async converged(expected: string[]): Promise<void> {
    await eventually(
      () => (JSON.stringify(this.cache()) === JSON.stringify(expected) ? true : undefined),
      `informer cache ${JSON.stringify(expected)} (has ${JSON.stringify(this.cache())})`,
    );
  }

  async stop(): Promise<void> {
    this.#closed = true;
    await this.#informer.stop();
  }
}

const NS = 'default';
const cms = `/api/v1/namespaces/${NS}/configmaps`;
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A temp database, a fixed port, the server on them and an informer connected to it. */
async function setUp(): Promise<{
  dbPath: string;
  port: number;
  running: Running;
  informer: TrackedInformer;
  restart(): Promise<void>;
}> {
  const dir = mkdtempSync(join(tmpdir(), 'informer-restart-'));
  const dbPath = join(dir, 'state.db');
  const port = await freePort();
  const ctx = {
    dbPath,
    port,
    running: await startServerOn(dbPath, port),
    informer: new TrackedInformer(`http://127.0.0.1:${port}`, NS),
    /** Stops the server, waits until the informer has failed to reach it, starts it again. */
    restart: async () => {
      const errors = ctx.informer.errors;
      await ctx.running.stop();
      await eventually(() => (ctx.informer.errors > errors ? true : undefined), 'a watch error');
      ctx.running = await startServerOn(dbPath, port);
    },
  };
  cleanups.push(async () => {
    await ctx.informer.stop();
    await ctx.running.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  return ctx;
}

const configMap = (name: string, v: string) => ({ metadata: { name }, data: { v } });

it('stays in sync through two restarts without relisting', async () => {
  const ctx = await setUp();
  const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((p) => uniqueName(p)) as [
    string,
    string,
    string,
    string,
  ];
  await ctx.running.api.create(cms, configMap(a, '1'));
  await ctx.running.api.create(cms, configMap(b, '1'));
  await ctx.informer.start();
  await ctx.informer.converged([`${a}=1`, `${b}=1`]);

  await ctx.restart();
  await ctx.running.api.create(cms, configMap(c, '1'));
  await ctx.running.api.mergePatch(`${cms}/${a}`, { data: { v: '2' } });
  expect((await ctx.running.api.request('DELETE', `${cms}/${b}`)).status).toBe(200);
  await ctx.informer.converged([`${a}=2`, `${c}=1`]);

  await ctx.restart();
  await ctx.running.api.create(cms, configMap(d, '1'));
  await ctx.running.api.mergePatch(`${cms}/${c}`, { data: { v: '3' } });
  expect((await ctx.running.api.request('DELETE', `${cms}/${a}`)).status).toBe(200);
  await ctx.informer.converged([`${c}=3`, `${d}=1`]);

  expect(ctx.informer.events).toEqual([
    `add ${a} 1`,
    `add ${b} 1`,
    `add ${c} 1`,
    `update ${a} 2`,
    `delete ${b} 1`,
    `add ${d} 1`,
    `update ${c} 3`,
    `delete ${a} 2`,
  ]);
  // Each restart resumed the watch from the informer's resourceVersion: one list in all.
  expect(ctx.informer.lists).toBe(1);
});

it('replays changes made while it could not reach the server', async () => {
  const ctx = await setUp();
  const [a, b, c] = ['a', 'b', 'c'].map((p) => uniqueName(p)) as [string, string, string];
  await ctx.running.api.create(cms, configMap(a, '1'));
  await ctx.running.api.create(cms, configMap(b, '1'));
  await ctx.informer.start();
  await ctx.informer.converged([`${a}=1`, `${b}=1`]);

  await ctx.running.stop();
  // The same database served on another port, which the informer does not know.
  const elsewhere = await startServerOn(ctx.dbPath, 0);
  await elsewhere.api.mergePatch(`${cms}/${a}`, { data: { v: '2' } });
  await elsewhere.api.request('DELETE', `${cms}/${b}`);
  await elsewhere.api.create(cms, configMap(c, '1'));
  await elsewhere.stop();
  ctx.running = await startServerOn(ctx.dbPath, ctx.port);

  await ctx.informer.converged([`${a}=2`, `${c}=1`]);
  expect(ctx.informer.events.slice(2)).toEqual([`update ${a} 2`, `delete ${b} 1`, `add ${c} 1`]);
  expect(ctx.informer.lists).toBe(1);
});

it('relists after a 410 when its resourceVersion was compacted away', async () => {
  const ctx = await setUp();
  const [a, b, c] = ['a', 'b', 'c'].map((p) => uniqueName(p)) as [string, string, string];
  await ctx.running.api.create(cms, configMap(a, '1'));
  await ctx.running.api.create(cms, configMap(b, '1'));
  await ctx.informer.start();
  await ctx.informer.converged([`${a}=1`, `${b}=1`]);

  await ctx.running.stop();
  const elsewhere = await startServerOn(ctx.dbPath, 0);
  await elsewhere.api.mergePatch(`${cms}/${a}`, { data: { v: '2' } });
  await elsewhere.api.request('DELETE', `${cms}/${b}`);
  await elsewhere.api.create(cms, configMap(c, '1'));
  const compactedTo = elsewhere.store.compact(0);
  expect(compactedTo).toBe(elsewhere.store.currentRevision);
  await elsewhere.stop();
  ctx.running = await startServerOn(ctx.dbPath, ctx.port);

  await ctx.informer.converged([`${a}=2`, `${c}=1`]);
  expect(ctx.informer.lists).toBe(2);
  expect([...ctx.informer.events.slice(2)].sort()).toEqual(
    [`update ${a} 2`, `delete ${b} 1`, `add ${c} 1`].sort(),
  );

  // And it keeps watching from the relisted resourceVersion.
  await ctx.running.api.mergePatch(`${cms}/${c}`, { data: { v: '2' } });
  await ctx.informer.converged([`${a}=2`, `${c}=2`]);
  expect(ctx.informer.lists).toBe(2);
});
