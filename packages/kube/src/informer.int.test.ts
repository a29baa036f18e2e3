// Informer against the real embedded API server: sync, events, indexes, a server restart on the
// same port (watch drop → reconnect), and a compacted store (in-stream 410 → relist).
/* eslint-disable no-restricted-imports -- tests run on the embedded apiserver (our envtest) */
import {
  ApiServer,
  listen,
  openStore,
  type ListeningServer,
  type Store,
} from '@agent-sandbox/apiserver';
/* eslint-enable no-restricted-imports */
import type { ConfigMap, KubeObject } from '@agent-sandbox/kube-types';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KubeClient } from './client.ts';
import { Informer } from './informer.ts';
import { CONFIG_MAPS } from './resources.ts';
import { configMap } from './testing/builders.ts';

type CM = ConfigMap & KubeObject;

/** The real server over a SQLite file, restartable on the same port. */
class Embedded {
  store!: Store;
  #server!: ApiServer;
  #listening!: ListeningServer;
  readonly dir = mkdtempSync(join(tmpdir(), 'informer-int-'));
  port = 0;
  async start(): Promise<void> {
    this.store = openStore({ path: join(this.dir, 'db') });
    this.#server = new ApiServer({ store: this.store });
    this.#server.start();
    this.#listening = await listen(this.#server, { port: this.port });
    this.port = this.#listening.port;
  }
  async stop(): Promise<void> {
    await this.#listening.close();
    this.#server.stop();
    this.store.close();
  }
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(): Promise<{ server: Embedded; client: KubeClient; ac: AbortController }> {
  const server = new Embedded();
  await server.start();
  const client = new KubeClient({
    config: { server: server.url, namespace: 'default', insecureSkipTlsVerify: true },
  });
  const ac = new AbortController();
  cleanups.push(async () => {
    ac.abort();
    await client.close();
    await server.stop().catch(() => undefined);
    rmSync(server.dir, { recursive: true, force: true });
  });
  return { server, client, ac };
}

async function until(cond: () => boolean, timeoutMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > timeoutMs) throw new Error(`condition not met in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('Informer', () => {
  it('syncs, then reports add/update/delete and keeps indexes current', async () => {
    const { client, ac } = await setup();
    await client.create(CONFIG_MAPS, configMap('default', 'pre', { labels: { team: 'a' } }));
    const informer = new Informer<CM>({ client, resource: CONFIG_MAPS, namespace: 'default' });
    informer.addIndex('team', (o) =>
      o.metadata.labels?.['team'] ? [o.metadata.labels['team']] : [],
    );
    const log: string[] = [];
    informer.addHandlers({
      onAdd: (o) => log.push(`add ${o.metadata.name}`),
      onUpdate: (_, o) => log.push(`update ${o.metadata.name}`),
      onDelete: (o) => log.push(`delete ${o.metadata.name}`),
    });
    void informer.run(ac.signal);
    await informer.waitForSync(ac.signal);
    expect(informer.cache.get('default/pre')?.metadata.labels).toEqual({ team: 'a' });
    await client.create(CONFIG_MAPS, configMap('default', 'new', { labels: { team: 'b' } }));
    await client.patch(CONFIG_MAPS, 'default', 'pre', {
      type: 'merge',
      body: { metadata: { labels: { team: 'b' } } },
    });
    await client.delete(CONFIG_MAPS, 'default', 'new');
    await until(() => log.length === 4);
    expect(log).toEqual(['add pre', 'add new', 'update pre', 'delete new']);
    expect(informer.cache.byIndex('team', 'b').map((o) => o.metadata.name)).toEqual(['pre']);
    expect(informer.cache.byIndex('team', 'a')).toEqual([]);
  });

  it('caches and hands out transformed objects, listed and watched alike', async () => {
    const { client, ac } = await setup();
    await client.create(CONFIG_MAPS, configMap('default', 'listed', { data: { big: 'x' } }));
    const seen: string[] = [];
    const informer = new Informer<CM>({
      client,
      resource: CONFIG_MAPS,
      namespace: 'default',
      transform: (o) => {
        const copy: CM = { ...(o as CM), metadata: { ...o.metadata } };
        delete copy.data;
        copy.metadata.annotations = { transformed: 'yes' };
        return copy;
      },
    });
    informer.addHandlers({
      onAdd: (o) => seen.push(`${o.metadata.name} ${JSON.stringify(o.data)}`),
    });
    void informer.run(ac.signal);
    await informer.waitForSync(ac.signal);
    await client.create(CONFIG_MAPS, configMap('default', 'watched', { data: { big: 'y' } }));
    await until(() => seen.length === 2);
    expect(seen).toEqual(['listed undefined', 'watched undefined']);
    for (const name of ['listed', 'watched']) {
      const cached = informer.cache.get(`default/${name}`);
      expect(cached?.data).toBeUndefined();
      expect(cached?.metadata.annotations).toEqual({ transformed: 'yes' });
    }
  });

  it('reconnects after an API server restart and sees changes made after it', async () => {
    const { server, client, ac } = await setup();
    await client.create(CONFIG_MAPS, configMap('default', 'one'));
    const informer = new Informer<CM>({
      client,
      resource: CONFIG_MAPS,
      namespace: 'default',
      initialBackoffMs: 50,
    });
    void informer.run(ac.signal);
    await informer.waitForSync(ac.signal);
    await server.stop();
    await server.start(); // same port, same database
    await client.create(CONFIG_MAPS, configMap('default', 'two'));
    await client.delete(CONFIG_MAPS, 'default', 'one');
    await until(
      () => informer.cache.get('default/two') !== undefined && !informer.cache.get('default/one'),
    );
    expect(informer.relists).toBe(1); // history was kept: it resumed, no relist needed
  });

  it('relists on 410 Expired after compaction and delivers the missed delete', async () => {
    const { server, client, ac } = await setup();
    await client.create(CONFIG_MAPS, configMap('default', 'keep'));
    await client.create(CONFIG_MAPS, configMap('default', 'gone'));
    const informer = new Informer<CM>({
      client,
      resource: CONFIG_MAPS,
      namespace: 'default',
      initialBackoffMs: 1_000,
    });
    const deleted: string[] = [];
    informer.addHandlers({ onDelete: (o) => deleted.push(o.metadata.name ?? '') });
    void informer.run(ac.signal);
    await informer.waitForSync(ac.signal);
    // Restart the server and, before the informer's reconnect (1 s backoff), change and compact
    // its store: the informer's resourceVersion is then older than the retained history.
    await server.stop();
    await server.start();
    await client.delete(CONFIG_MAPS, 'default', 'gone');
    for (let i = 0; i < 5; i++)
      await client.create(CONFIG_MAPS, configMap('default', `filler-${i}`));
    server.store.compact(0);
    await until(() => deleted.includes('gone'));
    expect(informer.relists).toBeGreaterThanOrEqual(2);
    expect(informer.cache.get('default/keep')).toBeDefined();
    expect(informer.cache.get('default/filler-4')).toBeDefined();
  });
});
