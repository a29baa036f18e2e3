// Group commit on real files (ADR 0010): writes of one event-loop turn share one transaction, a
// failing write in a batch undoes only itself, and acknowledgements and watch events wait for the
// durable commit. The kill -9 cases are in multi-process.int.test.ts.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isStorageError } from '../errors.ts';
import type { Store, WatchEvent } from '../store.ts';
import { openStore } from './open.ts';

let dir: string;
const stores: Store[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'group-commit-'));
});
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
  rmSync(dir, { recursive: true, force: true });
});

function open(name = 'state.db'): { store: Store; path: string } {
  const path = join(dir, name);
  const store = openStore({ path });
  stores.push(store);
  return { store, path };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
const value = (i: number) => JSON.stringify({ i, pad: 'x'.repeat(200) });

describe('group commit', () => {
  it('durable(upTo) waits only for revisions up to upTo; one in the open batch is committed first', async () => {
    const { store } = open();
    const a = store.create('/k/a', '"a"');
    await store.durable();
    const b = store.create('/k/b', '"b"'); // in the open batch: neither committed nor synced
    const settled: string[] = [];
    const old = store.durable(a.revision).then(() => settled.push('a'));
    const pending = store.durable(b.revision).then(() => settled.push('b'));
    await Promise.resolve();
    expect(settled).toEqual(['a']);
    await Promise.all([old, pending]);
    expect(settled).toEqual(['a', 'b']);
    await expect(store.durable(Infinity)).resolves.toBeUndefined();
  });

  it('writes made in one event-loop turn share one transaction (far fewer WAL frames)', async () => {
    const walGrowth = async (name: string, perTurn: number) => {
      const { store, path } = open(name);
      await store.durable();
      const before = statSync(`${path}-wal`).size;
      for (let i = 0; i < 100;) {
        for (let j = 0; j < perTurn; j++, i++) store.create(`/k/${i}`, value(i));
        await nextTurn();
      }
      await store.durable();
      expect(store.currentRevision).toBe(100);
      return statSync(`${path}-wal`).size - before;
    };
    const batched = await walGrowth('batched.db', 100);
    const oneByOne = await walGrowth('one-by-one.db', 1);
    // Each transaction appends the pages it touched plus a commit frame; one shared transaction
    // writes each touched page once.
    expect(batched * 5).toBeLessThan(oneByOne);
  });

  it('a stale revision gets its Conflict while the rest of the batch commits, in call order', async () => {
    const { store, path } = open();
    const a = store.create('/k/a', '"a0"');
    const b = store.create('/k/b', '"b0"');
    store.update('/k/b', '"b1"', b.revision);
    await store.durable();

    // One turn: a good update, a stale one, a txn that throws half-way, a create.
    const updated = store.update('/k/a', '"a1"', a.revision);
    let conflict: unknown;
    try {
      store.update('/k/b', '"b-stale"', b.revision);
    } catch (err: unknown) {
      conflict = err;
    }
    expect(() =>
      store.txn((tx) => {
        tx.create('/k/rolled-back', '"x"');
        throw new Error('admission failed');
      }),
    ).toThrow('admission failed');
    const created = store.create('/k/c', '"c0"');
    await store.durable();

    expect(isStorageError(conflict, 'Conflict')).toBe(true);
    expect(updated !== 'unchanged' && updated.revision).toBe(4);
    expect(created.revision).toBe(5); // the rolled-back txn used no revision
    store.close();

    const reopened = openStore({ path });
    stores.push(reopened);
    expect(reopened.get('/k/a')?.value).toBe('"a1"');
    expect(reopened.get('/k/b')?.value).toBe('"b1"');
    expect(reopened.get('/k/rolled-back')).toBeUndefined();
    expect(reopened.get('/k/c')?.revision).toBe(5);
    expect(reopened.currentRevision).toBe(5);
  });

  it('watch events arrive only after durable() settles, in revision order', async () => {
    const { store } = open();
    const seen: string[] = [];
    const events: WatchEvent[] = [];
    store.watch('/k/', 0, (e) => {
      events.push(e);
      seen.push(`event ${e.revision}`);
    });
    for (let i = 0; i < 5; i++) store.create(`/k/${i}`, value(i));
    const acked = store.durable().then(() => seen.push('durable'));
    for (let i = 0; i < 10; i++) await Promise.resolve();
    expect(seen).toEqual([]); // microtasks ran, the batch is still open: nothing went out
    await acked;
    await expect.poll(() => events.length).toBe(5);
    expect(seen[0]).toBe('durable');
    expect(events.map((e) => e.revision)).toEqual([1, 2, 3, 4, 5]);
  });

  it('close() commits and fsyncs a batch that has not reached its turn end yet', () => {
    const { store, path } = open();
    for (let i = 0; i < 10; i++) store.create(`/k/${i}`, value(i));
    store.close();
    const reopened = openStore({ path });
    stores.push(reopened);
    expect(reopened.currentRevision).toBe(10);
    expect(reopened.list('/k/').items).toHaveLength(10);
  });

  it('a loop that never yields still commits: durable() settles after a long synchronous batch', async () => {
    const { store } = open();
    for (let i = 0; i < 2500; i++) store.create(`/k/${i}`, value(i));
    await store.durable();
    expect(store.currentRevision).toBe(2500);
  });

  it('compact() first makes the open batch durable, so watchers still get every event', async () => {
    const { store } = open();
    const events: number[] = [];
    store.watch('/k/', 0, (e) => void events.push(e.revision));
    await nextTurn(); // the watcher has caught up with the (empty) log and is live
    for (let i = 0; i < 3; i++) store.create(`/k/${i}`, value(i));
    for (let i = 0; i < 3; i++) store.update(`/k/${i}`, value(i + 10));
    expect(store.compact(0)).toBe(6);
    await expect.poll(() => events.length).toBe(6);
    expect(events).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('an in-memory store batches too: events follow the commit', async () => {
    const store = openStore({ path: ':memory:' });
    stores.push(store);
    const events: number[] = [];
    store.watch('/k/', 0, (e) => void events.push(e.revision));
    store.create('/k/a', '1');
    store.create('/k/b', '2');
    await Promise.resolve();
    expect(events).toEqual([]); // not yet committed: the batch ends with the turn
    await store.durable();
    await expect.poll(() => events).toEqual([1, 2]);
  });
});
