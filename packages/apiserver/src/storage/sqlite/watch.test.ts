import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { StorageError } from '../errors.ts';
import type { Store, WatchEvent, WatchOptions } from '../store.ts';
import { openStore } from './open.ts';

let store: Store;
beforeEach(() => {
  store = openStore({ path: ':memory:' });
});
afterEach(() => store.close());

function collect(prefix: string, from: number, options?: WatchOptions) {
  const events: WatchEvent[] = [];
  const handle = store.watch(prefix, from, (e) => void events.push(e), options);
  const until = (n: number) =>
    vi.waitFor(() => expect(events.length).toBeGreaterThanOrEqual(n), { timeout: 2000 });
  const brief = () => events.map((e) => `${e.type} ${e.key}@${e.revision}`);
  return { events, handle, until, brief };
}

/** Lets queued microtasks and immediates run, so that any stray delivery would have happened. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('watch', () => {
  it('replays history after fromRevision, then delivers live changes, in revision order', async () => {
    store.create('/r/a', '1'); // 1
    store.create('/x/other', '1'); // 2
    store.update('/r/a', '2'); // 3
    const w = collect('/r/', 0);
    store.create('/r/b', '1'); // 4
    store.delete('/r/a'); // 5
    await w.until(4);
    expect(w.brief()).toEqual([
      'ADDED /r/a@1',
      'MODIFIED /r/a@3',
      'ADDED /r/b@4',
      'DELETED /r/a@5',
    ]);
    expect(w.events[1]).toEqual({
      type: 'MODIFIED',
      key: '/r/a',
      revision: 3,
      value: '2',
      prevValue: '1',
      createRevision: 1,
    });
    expect(w.events[3]).toMatchObject({ value: '2', prevValue: '2', createRevision: 1 });
  });

  it('replays history written before any watcher existed, with no later write', async () => {
    store.create('/r/a', '1');
    store.create('/r/b', '1');
    const w = collect('/r/', 0);
    await w.until(2);
    expect(w.brief()).toEqual(['ADDED /r/a@1', 'ADDED /r/b@2']);
    // And again after the first watcher is gone.
    w.handle.cancel();
    store.update('/r/a', '2');
    const again = collect('/r/', 2);
    await again.until(1);
    expect(again.brief()).toEqual(['MODIFIED /r/a@3']);
  });

  it('from the current revision delivers only later changes (list then watch)', async () => {
    store.create('/r/a', '1');
    const { revision } = store.list('/r/');
    const w = collect('/r/', revision);
    store.update('/r/a', '2');
    await w.until(1);
    await settle();
    expect(w.brief()).toEqual(['MODIFIED /r/a@2']);
  });

  it('delivers asynchronously, never inside the writer', () => {
    const w = collect('/r/', 0);
    store.create('/r/a', '1');
    expect(w.events).toEqual([]);
  });

  it('a future fromRevision waits until the log reaches it', async () => {
    const w = collect('/r/', 2);
    store.create('/r/a', '1');
    store.create('/r/b', '1');
    store.create('/r/c', '1');
    await w.until(1);
    await settle();
    expect(w.brief()).toEqual(['ADDED /r/c@3']);
  });

  it('fans out to several watchers, each with its own prefix and start', async () => {
    store.create('/r/ns1/a', '1'); // 1
    const all = collect('/r/', 0);
    const ns1 = collect('/r/ns1/', 1);
    const ns2 = collect('/r/ns2/', 0);
    const everything = collect('', 0);
    store.create('/r/ns2/a', '1'); // 2
    store.create('/r/ns1/b', '1'); // 3
    store.create('/r/ns1-x/c', '1'); // 4
    await all.until(4);
    await everything.until(4);
    await settle();
    expect(all.brief()).toEqual([
      'ADDED /r/ns1/a@1',
      'ADDED /r/ns2/a@2',
      'ADDED /r/ns1/b@3',
      'ADDED /r/ns1-x/c@4',
    ]);
    expect(ns1.brief()).toEqual(['ADDED /r/ns1/b@3']);
    expect(ns2.brief()).toEqual(['ADDED /r/ns2/a@2']);
    expect(everything.events).toHaveLength(4);
  });

  it('sends nothing for no-op updates and rolled-back transactions', async () => {
    store.create('/r/a', '1');
    const w = collect('/r/', 1);
    store.update('/r/a', '1');
    expect(() =>
      store.txn((tx) => {
        tx.update('/r/a', '2');
        throw new Error('abort');
      }),
    ).toThrow('abort');
    store.update('/r/a', '3');
    await w.until(1);
    await settle();
    expect(w.events).toEqual([
      {
        type: 'MODIFIED',
        key: '/r/a',
        revision: 2,
        value: '3',
        prevValue: '1',
        createRevision: 1,
      },
    ]);
  });

  it('delivers the writes of one txn in revision order after commit', async () => {
    const w = collect('/r/', 0);
    store.txn((tx) => {
      tx.create('/r/b', '1');
      tx.create('/r/a', '1');
      tx.delete('/r/b');
    });
    await w.until(3);
    expect(w.brief()).toEqual(['ADDED /r/b@1', 'ADDED /r/a@2', 'DELETED /r/b@3']);
  });

  it('cancel stops delivery at once and resolves done with undefined', async () => {
    const w = collect('/r/', 0);
    store.create('/r/a', '1');
    await w.until(1);
    store.create('/r/b', '1');
    w.handle.cancel();
    w.handle.cancel();
    await settle();
    expect(w.events).toHaveLength(1);
    await expect(w.handle.done).resolves.toBeUndefined();
  });

  it('replays a long history in order, in batches', async () => {
    store.txn((tx) => {
      for (let i = 0; i < 1234; i++) tx.create(`/r/${i}`, String(i));
    });
    const w = collect('/r/', 0);
    store.create('/r/live', 'x');
    await w.until(1235);
    expect(w.events.map((e) => e.revision)).toEqual(Array.from({ length: 1235 }, (_, i) => i + 1));
  });

  it('a slow watcher is bounded by maxBufferedEvents and catches up from the log', async () => {
    const events: WatchEvent[] = [];
    let release: () => void = () => undefined;
    let gate = new Promise<void>((resolve) => (release = resolve));
    const handle = store.watch(
      '/r/',
      0,
      async (e) => {
        events.push(e);
        await gate;
      },
      { maxBufferedEvents: 10 },
    );
    store.create('/r/first', '0');
    await vi.waitFor(() => expect(events).toHaveLength(1));
    // The consumer is blocked; 100 more writes must not queue 100 events in memory.
    for (let i = 0; i < 100; i++) store.create(`/r/${i}`, String(i));
    await settle();
    expect(events).toHaveLength(1);
    release();
    gate = Promise.resolve();
    await vi.waitFor(() => expect(events).toHaveLength(101));
    expect(events.map((e) => e.revision)).toEqual(Array.from({ length: 101 }, (_, i) => i + 1));
    store.create('/r/after', 'x');
    await vi.waitFor(() => expect(events).toHaveLength(102));
    handle.cancel();
  });

  it('a slow watcher overtaken by compaction ends with Compacted', async () => {
    const errors: Error[] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const seen: number[] = [];
    const handle = store.watch(
      '/r/',
      0,
      async (e) => {
        seen.push(e.revision);
        await gate;
      },
      { maxBufferedEvents: 2, onError: (err) => errors.push(err) },
    );
    store.create('/r/a', '0');
    await vi.waitFor(() => expect(seen).toHaveLength(1));
    for (let i = 1; i <= 10; i++) store.update('/r/a', String(i));
    await settle();
    store.compact(0);
    release();
    const err = await handle.done;
    expect(err).toBeInstanceOf(StorageError);
    expect(err).toMatchObject({ code: 'Compacted' });
    expect(errors).toEqual([err]);
    // What it got before the hole is a gap-free prefix of the history.
    expect(seen).toEqual(seen.map((_, i) => i + 1));
  });

  it('a throwing handler ends the watch with WatchClosed and the error as cause', async () => {
    const boom = new Error('boom');
    const errors: Error[] = [];
    const handle = store.watch(
      '/r/',
      0,
      () => {
        throw boom;
      },
      { onError: (err) => errors.push(err) },
    );
    store.create('/r/a', '1');
    const err = await handle.done;
    expect(err).toMatchObject({ code: 'WatchClosed', cause: boom });
    expect(errors).toHaveLength(1);
    store.create('/r/b', '1'); // writers are unaffected
  });

  it('closing right after a write (fan-out still pending) neither throws nor delivers', async () => {
    const w = collect('/r/', 0);
    store.create('/r/a', '1');
    store.close();
    await settle();
    expect(w.events).toEqual([]);
    await expect(w.handle.done).resolves.toMatchObject({ code: 'WatchClosed' });
    store = openStore({ path: ':memory:' });
  });

  it('close ends every watch with WatchClosed', async () => {
    const w = collect('/r/', 0);
    store.close();
    await expect(w.handle.done).resolves.toMatchObject({ code: 'WatchClosed' });
    store = openStore({ path: ':memory:' });
  });
});

describe('watch across Store instances (lock: shared)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'storage-watch-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('sees writes made through another Store on the same file by polling', async () => {
    const path = join(dir, 'state.db');
    const a = openStore({ path, lock: 'shared', pollIntervalMs: 10 });
    const b = openStore({ path, lock: 'shared', pollIntervalMs: 10 });
    try {
      const events: WatchEvent[] = [];
      a.watch('/r/', 0, (e) => void events.push(e));
      b.create('/r/x', '1');
      a.create('/r/y', '1');
      b.update('/r/x', '2');
      await vi.waitFor(() => expect(events).toHaveLength(3));
      expect(events.map((e) => `${e.type} ${e.key}@${e.revision}`)).toEqual([
        'ADDED /r/x@1',
        'ADDED /r/y@2',
        'MODIFIED /r/x@3',
      ]);
    } finally {
      a.close();
      b.close();
    }
  });
});
