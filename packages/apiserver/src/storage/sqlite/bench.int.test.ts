// Micro-benchmark, printed and not asserted (numbers depend on the machine and its disk).
// Run: npx vitest run --project integration packages/apiserver/src/storage/sqlite/bench.int.test.ts
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Store } from '../store.ts';
import { openStore, type OpenStoreOptions } from './open.ts';

const dir = mkdtempSync(join(tmpdir(), 'storage-bench-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const value = (i: number) =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `cm-${i}`, namespace: 'default', uid: `uid-${i}`, labels: { app: 'bench' } },
    data: { payload: 'x'.repeat(400) },
  });

function rate(n: number, fn: () => void): number {
  const start = performance.now();
  fn();
  return Math.round(n / ((performance.now() - start) / 1000));
}

function ms(fn: () => void): number {
  const start = performance.now();
  fn();
  return Math.round((performance.now() - start) * 10) / 10;
}

describe('storage micro-benchmark', () => {
  it('acknowledged writes per second: group commit against one fsync per write', async () => {
    // A server acknowledges a write once `durable()` settles. `perTurn` writes arrive in one
    // event-loop turn (like `perTurn` requests in flight), the next turn starts when they are
    // acknowledged: closed-loop clients, as in bench/apiserver.
    const acked = async (store: Store, n: number, perTurn: number, write: (i: number) => void) => {
      const start = performance.now();
      for (let i = 0; i < n;) {
        for (const end = Math.min(n, i + perTurn); i < end; i++) write(i);
        await store.durable();
      }
      return Math.round(n / ((performance.now() - start) / 1000));
    };
    const rows: Record<string, Record<string, number>> = {};
    const configs: [string, Partial<OpenStoreOptions>, number][] = [
      ['group commit, synchronous=full (default)', {}, 2000],
      ['one fsync per write (groupCommit: false)', { groupCommit: false }, 1000],
      ['group commit, synchronous=normal', { synchronous: 'normal' }, 5000],
      [':memory:', { path: ':memory:' }, 5000],
    ];
    for (const [name, opts, n] of configs) {
      const store = openStore({
        path: join(dir, `bench-${Object.keys(rows).length}.db`),
        ...opts,
      });
      const row: Record<string, number> = {};
      for (const perTurn of [1, 8, 32]) {
        const base = perTurn * 100_000;
        row[`creates/s ×${perTurn}`] = await acked(store, n, perTurn, (i) =>
          store.create(`/registry/configmaps/default/cm-${base + i}`, value(i)),
        );
      }
      row['updates/s ×32'] = await acked(store, n, 32, (i) =>
        store.update(`/registry/configmaps/default/cm-${3_200_000 + i}`, value(i + 1)),
      );
      row['gets/s'] = rate(n, () => {
        for (let i = 0; i < n; i++) store.get(`/registry/configmaps/default/cm-${100_000 + i}`);
      });
      rows[name] = row;
      expect(store.currentRevision).toBe(4 * n);
      store.close();
    }
    console.table(rows);
  });

  it('list of 10k objects, watch fan-out, startup', async () => {
    const path = join(dir, 'list.db');
    let store: Store = openStore({ path, synchronous: 'normal' });
    store.txn((tx) => {
      for (let i = 0; i < 10_000; i++)
        tx.create(`/registry/configmaps/ns-${i % 50}/cm-${i}`, value(i));
    });
    store.txn((tx) => {
      for (let i = 0; i < 10_000; i += 2)
        tx.update(`/registry/configmaps/ns-${i % 50}/cm-${i}`, value(i + 1));
    });
    const results: Record<string, number> = {};
    results['list 10k, one page (ms)'] = ms(() =>
      expect(store.list('/registry/configmaps/').items).toHaveLength(10_000),
    );
    results['list 10k, pages of 500 (ms)'] = ms(() => {
      let page = store.list('/registry/configmaps/', { limit: 500 });
      let n = page.items.length;
      while (page.remaining > 0) {
        page = store.list('/registry/configmaps/', {
          limit: 500,
          revision: page.revision,
          startAfter: page.items.at(-1)?.key,
        });
        n += page.items.length;
      }
      expect(n).toBe(10_000);
    });
    results['list one namespace of 200 (ms)'] = ms(() =>
      expect(store.list('/registry/configmaps/ns-7/').items).toHaveLength(200),
    );
    results['count 10k (ms)'] = ms(() => store.count('/registry/configmaps/'));

    // Fan-out: 100 watchers on the whole resource, 1000 writes.
    const watchers = 100;
    const writes = 1000;
    let delivered = 0;
    const from = store.currentRevision;
    const handles = Array.from({ length: watchers }, () =>
      store.watch('/registry/configmaps/', from, () => void delivered++),
    );
    const start = performance.now();
    for (let i = 0; i < writes; i++)
      store.update(`/registry/configmaps/ns-${i % 50}/cm-${i}`, value(i + 7));
    await new Promise<void>((resolve) => {
      const check = () => (delivered >= watchers * writes ? resolve() : setImmediate(check));
      check();
    });
    results['watch: events delivered/s (100 watchers × 1000 writes)'] = Math.round(
      (watchers * writes) / ((performance.now() - start) / 1000),
    );
    for (const h of handles) h.cancel();

    const replay = performance.now();
    let replayed = 0;
    await new Promise<void>((resolve) => {
      store.watch('/registry/configmaps/', 0, () => {
        if (++replayed === store.currentRevision) resolve();
      });
    });
    results[`watch: replay of ${replayed} revisions (ms)`] = Math.round(performance.now() - replay);
    store.close();
    results['open 10k objects / 16k revisions, with quick_check (ms)'] = ms(() => {
      store = openStore({ path });
    });
    store.close();
    results['open, verifyOnOpen=false (ms)'] = ms(() => {
      store = openStore({ path, verifyOnOpen: false });
    });
    store.close();
    console.table(results);
  });
});
