// The seen-revision scope (ADR 0046) on a real in-memory store: what a request read or wrote is
// noted into its own scope, and nothing is noted outside one.
import { afterEach, describe, expect, it } from 'vitest';
import { revisionNotingStore, withSeenRevision } from './seen-revision.ts';
import { openStore } from './sqlite/open.ts';
import type { Store } from './store.ts';

const stores: Store[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});

function noting(): { raw: Store; store: Store } {
  const raw = openStore({ path: ':memory:' });
  stores.push(raw);
  return { raw, store: revisionNotingStore(raw) };
}

describe('seen revision', () => {
  it('a get notes the object revision, not the newer unrelated writes', async () => {
    const { raw, store } = noting();
    const a = raw.create('/k/a', '"a"');
    raw.create('/k/b', '"b"');
    const { result, seen } = await withSeenRevision(() => store.get('/k/a'));
    expect(result?.revision).toBe(a.revision);
    expect(seen).toBe(a.revision);
  });

  it('a miss notes the current revision (a 404 may reveal a delete)', async () => {
    const { raw, store } = noting();
    raw.create('/k/a', '"a"');
    const gone = raw.delete('/k/a');
    expect((await withSeenRevision(() => store.get('/k/a'))).seen).toBe(gone.revision);
  });

  it('a list notes the revision it read at', async () => {
    const { raw, store } = noting();
    raw.create('/k/a', '"a"');
    raw.create('/x/b', '"b"');
    const { seen } = await withSeenRevision(() => store.list('/k/'));
    expect(seen).toBe(raw.currentRevision);
  });

  it('writes, also inside txn, note their new revision; the scope survives awaits', async () => {
    const { store } = noting();
    const { result, seen } = await withSeenRevision(async () => {
      store.create('/k/a', '"a"');
      await new Promise((resolve) => setImmediate(resolve));
      return store.txn((tx) => tx.create('/k/b', '"b"'));
    });
    expect(seen).toBe(result.revision);
  });

  it('concurrent scopes do not mix, and nothing is noted outside a scope', async () => {
    const { raw, store } = noting();
    const a = raw.create('/k/a', '"a"');
    const [first, second] = await Promise.all([
      withSeenRevision(async () => {
        await new Promise((resolve) => setImmediate(resolve));
        return store.get('/k/a');
      }),
      withSeenRevision(() => store.create('/k/b', '"b"')),
    ]);
    expect(first.seen).toBe(a.revision);
    expect(second.seen).toBe(second.result.revision);
    store.create('/k/c', '"c"');
    expect((await withSeenRevision(() => undefined)).seen).toBe(0);
  });
});
