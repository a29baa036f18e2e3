import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StorageError, type StorageErrorCode } from '../errors.ts';
import type { Store } from '../store.ts';
import { openStore } from './open.ts';

let store: Store;
beforeEach(() => {
  store = openStore({ path: ':memory:', clock: () => 1_700_000_000_000 });
});
afterEach(() => store.close());

function codeOf(fn: () => unknown): StorageErrorCode | 'no error' {
  try {
    fn();
  } catch (err: unknown) {
    if (err instanceof StorageError) return err.code;
    throw err;
  }
  return 'no error';
}

describe('create, get, update, delete', () => {
  it('gives every write the next global revision and tracks createRevision', () => {
    expect(store.currentRevision).toBe(0);
    const a = store.create('/r/a', '{"v":1}');
    const b = store.create('/r/b', '{"v":1}');
    expect([a.revision, b.revision]).toEqual([1, 2]);
    const a2 = store.update('/r/a', '{"v":2}');
    expect(a2).toEqual({ key: '/r/a', revision: 3, createRevision: 1, value: '{"v":2}' });
    expect(store.get('/r/a')).toEqual(a2);
    expect(store.get('/r/a', 2)).toEqual(a);
    const gone = store.delete('/r/a');
    expect(gone).toEqual({ key: '/r/a', revision: 4, createRevision: 1, value: '{"v":2}' });
    expect(store.get('/r/a')).toBeUndefined();
    expect(store.get('/r/a', 3)).toEqual(a2);
    const again = store.create('/r/a', '{"v":3}');
    expect(again).toEqual({ key: '/r/a', revision: 5, createRevision: 5, value: '{"v":3}' });
    expect(store.currentRevision).toBe(5);
  });

  it.each<{ name: string; run: (s: Store) => unknown; code: StorageErrorCode }>([
    { name: 'create of a live key', run: (s) => s.create('/k/live', 'x'), code: 'KeyExists' },
    { name: 'update of a missing key', run: (s) => s.update('/k/none', 'x'), code: 'NotFound' },
    { name: 'update of a deleted key', run: (s) => s.update('/k/dead', 'x'), code: 'NotFound' },
    { name: 'delete of a missing key', run: (s) => s.delete('/k/none'), code: 'NotFound' },
    { name: 'delete of a deleted key', run: (s) => s.delete('/k/dead'), code: 'NotFound' },
    { name: 'update, stale revision', run: (s) => s.update('/k/live', 'y', 1), code: 'Conflict' },
    {
      name: 'no-op update, stale revision',
      run: (s) => s.update('/k/live', 'v2', 1),
      code: 'Conflict',
    },
    { name: 'delete, stale revision', run: (s) => s.delete('/k/live', 1), code: 'Conflict' },
    { name: 'update, future revision', run: (s) => s.update('/k/live', 'y', 99), code: 'Conflict' },
    {
      name: 'get beyond current',
      run: (s) => s.get('/k/live', 99),
      code: 'TooLargeResourceVersion',
    },
    {
      name: 'list beyond current',
      run: (s) => s.list('/k/', { revision: 99 }),
      code: 'TooLargeResourceVersion',
    },
    { name: 'empty key', run: (s) => s.create('', 'x'), code: 'InvalidArgument' },
    { name: 'limit 0', run: (s) => s.list('/k/', { limit: 0 }), code: 'InvalidArgument' },
  ])('$name → $code', ({ run, code }) => {
    store.create('/k/live', 'v1'); // 1
    store.update('/k/live', 'v2'); // 2
    store.create('/k/dead', 'x'); // 3
    store.delete('/k/dead'); // 4
    const before = store.currentRevision;
    expect(codeOf(() => run(store))).toBe(code);
    expect(store.currentRevision).toBe(before);
  });

  it('errors carry the revisions kube messages need', () => {
    store.create('/r/a', '1'); // 1
    store.update('/r/a', '2'); // 2
    store.compact(0);
    const caught = (fn: () => unknown) => {
      try {
        fn();
      } catch (err: unknown) {
        return err;
      }
      throw new Error('expected an error');
    };
    expect(caught(() => store.get('/r/a', 1))).toMatchObject({
      code: 'Compacted',
      revisions: { requested: 1, compact: 2 },
    });
    expect(caught(() => store.get('/r/a', 7))).toMatchObject({
      code: 'TooLargeResourceVersion',
      revisions: { requested: 7, current: 2 },
      message: 'Too large resource version: 7, current: 2',
    });
    expect(caught(() => store.update('/r/a', '3', 1))).toMatchObject({
      code: 'Conflict',
      revisions: { requested: 1, current: 2 },
    });
  });

  it('update and delete with the current revision succeed (optimistic concurrency)', () => {
    const a = store.create('/r/a', '1');
    const a2 = store.update('/r/a', '2', a.revision);
    if (a2 === 'unchanged') throw new Error('expected a write');
    expect(codeOf(() => store.update('/r/a', '3', a.revision))).toBe('Conflict');
    expect(store.delete('/r/a', a2.revision).revision).toBe(3);
  });

  it('a byte-identical update is a no-op: no revision, no history', () => {
    const a = store.create('/r/a', '{"a":1,"b":2}');
    expect(store.update('/r/a', '{"a":1,"b":2}')).toBe('unchanged');
    expect(store.update('/r/a', '{"a":1,"b":2}', a.revision)).toBe('unchanged');
    expect(store.currentRevision).toBe(1);
    // Semantically equal but not byte-identical JSON is a real write.
    expect(store.update('/r/a', '{"b":2,"a":1}')).toMatchObject({ revision: 2 });
  });

  it('stores values byte for byte (unicode, large integers, whitespace)', () => {
    const value = '{"n":12345678901234567890,"s":"ü€𝄞\\n","f":1.0} ';
    store.create('/r/u', value);
    expect(store.get('/r/u')?.value).toBe(value);
  });
});

describe('request size (etcd --max-request-bytes)', () => {
  const MiB = 1024 * 1024;
  const json = (bytes: number): string => `"${'x'.repeat(bytes - 2)}"`;
  const messageOf = (fn: () => unknown): string => {
    try {
      fn();
    } catch (err: unknown) {
      if (err instanceof StorageError && err.code === 'RequestTooLarge') return err.message;
      throw err;
    }
    return 'no error';
  };

  it('refuses a create or update over 1.5 MiB with etcd message; writes nothing', () => {
    const key = '/r/big';
    const fits = 1.5 * MiB - key.length;
    expect(store.create(key, json(fits)).revision).toBe(1);
    expect(messageOf(() => store.update(key, json(fits + 1)))).toBe(
      'etcdserver: request is too large',
    );
    expect(messageOf(() => store.create('/r/other', json(1.6 * MiB)))).toBe(
      'etcdserver: request is too large',
    );
    // A multi-byte character counts by its UTF-8 bytes, as etcd counts them.
    expect(messageOf(() => store.create('/r/u', `"${'€'.repeat(0.6 * MiB)}"`))).toBe(
      'etcdserver: request is too large',
    );
    expect(store.currentRevision).toBe(1);
    expect(store.get('/r/other')).toBeUndefined();
  });

  it("past 2 MiB, the gRPC send limit's message, with the size, as kube's etcd client gives", () => {
    const value = json(2 * MiB);
    expect(messageOf(() => store.create('/r/huge', value))).toBe(
      `rpc error: code = ResourceExhausted desc = trying to send message larger than max (${2 * MiB + 7} vs. ${2 * MiB})`,
    );
  });

  it('checks inside a transaction too, and rolls the transaction back', () => {
    expect(() =>
      store.txn((tx) => {
        tx.create('/r/a', '1');
        tx.create('/r/b', json(1.6 * MiB));
      }),
    ).toThrow('etcdserver: request is too large');
    expect(store.get('/r/a')).toBeUndefined();
  });
});

describe('txn', () => {
  it('makes read-check-write atomic and rolls back on throw', () => {
    store.create('/r/a', '1');
    expect(() =>
      store.txn((tx) => {
        tx.create('/r/b', '1');
        tx.update('/r/a', '2');
        throw new Error('precondition failed');
      }),
    ).toThrow('precondition failed');
    expect(store.get('/r/b')).toBeUndefined();
    expect(store.get('/r/a')?.value).toBe('1');
    expect(store.currentRevision).toBe(1);

    const result = store.txn((tx) => {
      const a = tx.get('/r/a');
      if (a === undefined) throw new Error('missing');
      tx.update('/r/a', String(Number(a.value) + 1), a.revision);
      return tx.create('/r/b', 'new');
    });
    expect(result.revision).toBe(3);
    expect(store.get('/r/a')?.value).toBe('2');
  });

  it('nested txn joins the outer transaction', () => {
    expect(() =>
      store.txn(() => {
        store.txn((inner) => inner.create('/r/x', '1'));
        throw new Error('outer fails');
      }),
    ).toThrow('outer fails');
    expect(store.get('/r/x')).toBeUndefined();
  });
});

describe('list', () => {
  it('lists live objects under a prefix in byte order of key (semantics doc §12.4)', () => {
    // Namespaces a, a-b, a.b, ab: '-' (0x2d) and '.' (0x2e) sort before '/' (0x2f).
    for (const key of [
      '/registry/pods/a/x',
      '/registry/pods/ab/x',
      '/registry/pods/a-b/x',
      '/registry/pods/a.b/x',
      '/registry/pods/a/b',
      '/registry/pods/B/x',
      '/registry/pods/é/x',
      '/registry/podsx/a/x',
      '/registry/pod/a/x',
    ]) {
      store.create(key, '{}');
    }
    store.create('/registry/pods/a/gone', '{}');
    store.delete('/registry/pods/a/gone');
    expect(store.list('/registry/pods/').items.map((i) => i.key)).toEqual([
      '/registry/pods/B/x',
      '/registry/pods/a-b/x',
      '/registry/pods/a.b/x',
      '/registry/pods/a/b',
      '/registry/pods/a/x',
      '/registry/pods/ab/x',
      '/registry/pods/é/x',
    ]);
    expect(store.list('/registry/pods/a/').items.map((i) => i.key)).toEqual([
      '/registry/pods/a/b',
      '/registry/pods/a/x',
    ]);
    expect(store.count('/registry/pods/')).toBe(7);
    expect(store.count('')).toBe(9);
    expect(store.list('').items).toHaveLength(9);
  });

  it('treats LIKE wildcards in keys literally', () => {
    store.create('/r/a_b', '1');
    store.create('/r/axb', '1');
    store.create('/r/a%/x', '1');
    expect(store.list('/r/a_').items.map((i) => i.key)).toEqual(['/r/a_b']);
    expect(store.list('/r/a%').items.map((i) => i.key)).toEqual(['/r/a%/x']);
  });

  it('returns the list revision (current, may exceed every item) and items as of a revision', () => {
    store.create('/r/a', '1'); // 1
    store.create('/other/x', '1'); // 2
    const now = store.list('/r/');
    expect(now.revision).toBe(2);
    store.update('/r/a', '2'); // 3
    store.create('/r/b', '1'); // 4
    store.delete('/r/a'); // 5
    expect(store.list('/r/', { revision: 2 }).items).toEqual([
      { key: '/r/a', revision: 1, createRevision: 1, value: '1' },
    ]);
    expect(store.list('/r/', { revision: 4 }).items.map((i) => [i.key, i.value])).toEqual([
      ['/r/a', '2'],
      ['/r/b', '1'],
    ]);
    expect(store.list('/r/').items.map((i) => i.key)).toEqual(['/r/b']);
  });

  it('pages form one snapshot while writes happen between pages', () => {
    for (let i = 0; i < 25; i++) store.create(`/r/${String(i).padStart(3, '0')}`, `v${i}`);
    const first = store.list('/r/', { limit: 10 });
    expect(first.items).toHaveLength(10);
    expect(first.remaining).toBe(15);
    const seen = [...first.items];
    let page = first;
    let writes = 0;
    while (page.remaining > 0) {
      // Concurrent churn: create before and after the cursor, update and delete unseen keys.
      store.create(`/r/000-new-${writes}`, 'new');
      store.create(`/r/999-new-${writes}`, 'new');
      store.update('/r/024', `changed-${writes}`);
      if (writes === 0) store.delete('/r/020');
      writes++;
      const after = page.items.at(-1)?.key;
      page = store.list('/r/', { limit: 10, revision: first.revision, startAfter: after });
      expect(page.revision).toBe(first.revision);
      seen.push(...page.items);
    }
    expect(seen.map((i) => i.key)).toEqual(
      Array.from({ length: 25 }, (_, i) => `/r/${String(i).padStart(3, '0')}`),
    );
    expect(seen.at(-1)?.value).toBe('v24');
    expect(page.remaining).toBe(0);
  });

  it('startAfter before the prefix starts at the prefix; limit beyond the end has remaining 0', () => {
    store.create('/r/a', '1');
    store.create('/r/b', '1');
    expect(store.list('/r/', { startAfter: '/a', limit: 5 })).toMatchObject({ remaining: 0 });
    expect(store.list('/r/', { startAfter: '/a' }).items).toHaveLength(2);
    expect(store.list('/r/', { startAfter: '/r/a' }).items.map((i) => i.key)).toEqual(['/r/b']);
    expect(store.list('/r/', { limit: 2 }).remaining).toBe(0);
    expect(store.list('/r/', { limit: 1 }).remaining).toBe(1);
  });
});

describe('changedSince', () => {
  it('tells whether a write after a revision touched the prefix (deletes and txn writes too)', () => {
    store.create('/rbac/a', '1');
    const other = store.create('/pods/x', '1');
    expect(store.changedSince('/rbac/', other.revision)).toBe(false);
    expect(store.changedSince('/rbac/', 0)).toBe(true);
    store.update('/pods/x', '2');
    expect(store.changedSince('/rbac/', other.revision)).toBe(false);
    const del = store.delete('/rbac/a');
    expect(store.changedSince('/rbac/', other.revision)).toBe(true);
    expect(store.changedSince('/rbac/', del.revision)).toBe(false);
    expect(store.changedSince('/rbac', del.revision)).toBe(false); // '/rbacx' is after it
    store.txn((tx) => {
      tx.create('/rbac/b', '1');
      expect(tx.changedSince('/rbac/', del.revision)).toBe(true);
    });
  });

  it('is true below the compact revision, where the telling writes may be gone', () => {
    store.create('/rbac/a', '1');
    store.delete('/rbac/a');
    const last = store.create('/pods/x', '1');
    store.compact(0);
    expect(store.changedSince('/rbac/', last.revision)).toBe(false);
    expect(store.changedSince('/rbac/', 1)).toBe(true); // the delete's tombstone was compacted
  });
});

describe('compact', () => {
  it('removes superseded and deleted history but keeps the latest live row of every key', () => {
    store.create('/r/a', '1'); // 1
    store.update('/r/a', '2'); // 2
    store.create('/r/b', '1'); // 3
    store.delete('/r/b'); // 4
    store.create('/r/c', '1'); // 5  never modified: its only row must survive
    store.update('/r/a', '3'); // 6
    expect(store.compact(2)).toBe(4);
    expect(store.compactRevision).toBe(4);
    expect(store.list('/r/', { revision: 4 }).items.map((i) => [i.key, i.value])).toEqual([
      ['/r/a', '2'],
    ]);
    expect(store.list('/r/', { revision: 5 }).items.map((i) => [i.key, i.value])).toEqual([
      ['/r/a', '2'],
      ['/r/c', '1'],
    ]);
    expect(store.get('/r/a', 5)?.value).toBe('2');
    expect(codeOf(() => store.get('/r/a', 3))).toBe('Compacted');
    expect(codeOf(() => store.list('/r/', { revision: 1 }))).toBe('Compacted');
    expect(codeOf(() => store.watch('/r/', 3, () => undefined))).toBe('Compacted');
    // Compacting everything keeps current state and never lowers the compact revision.
    expect(store.compact(0)).toBe(6);
    expect(store.compact(100)).toBe(6);
    expect(store.list('/r/').items.map((i) => [i.key, i.value])).toEqual([
      ['/r/a', '3'],
      ['/r/c', '1'],
    ]);
    expect(store.get('/r/b')).toBeUndefined();
  });

  it('never reuses a revision after the newest rows were compacted away', () => {
    store.create('/r/a', '1'); // 1
    store.delete('/r/a'); // 2  tombstone is the newest row
    expect(store.compact(0)).toBe(2);
    expect(store.count('')).toBe(0);
    expect(store.currentRevision).toBe(2);
    expect(store.create('/r/a', 'again')).toMatchObject({ revision: 3, createRevision: 3 });
  });

  it('compacts in batches larger than one transaction', () => {
    store.txn((tx) => {
      for (let i = 0; i < 6_000; i++) tx.create(`/r/${i}`, '1');
      for (let i = 0; i < 6_000; i++) tx.update(`/r/${i}`, '2');
    });
    expect(store.compact(10)).toBe(11_990);
    expect(store.count('/r/')).toBe(6_000);
    expect(store.get('/r/0')?.value).toBe('2');
  });
});

describe('closed store', () => {
  it('throws InvalidArgument after close; close is idempotent', () => {
    store.close();
    store.close();
    expect(codeOf(() => store.get('/r/a'))).toBe('InvalidArgument');
    expect(codeOf(() => store.create('/r/a', '1'))).toBe('InvalidArgument');
    store = openStore({ path: ':memory:' });
  });
});
