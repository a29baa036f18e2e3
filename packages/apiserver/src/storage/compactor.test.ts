import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startCompactor, type CompactorHandle } from './compactor.ts';
import { openStore } from './sqlite/open.ts';
import type { Store } from './store.ts';

let store: Store;
let now: number;
let compactor: CompactorHandle | undefined;
beforeEach(() => {
  store = openStore({ path: ':memory:' });
  now = 0;
});
afterEach(() => {
  compactor?.stop();
  store.close();
});

/** Writes `n` updates of one key. */
function churn(n: number): void {
  if (store.get('/r/a') === undefined) store.create('/r/a', '0');
  for (let i = 0; i < n; i++) store.update('/r/a', `${store.currentRevision}`);
}

describe('startCompactor', () => {
  it('keeps both the last keepRevisions revisions and the last keepMs of history', () => {
    compactor = startCompactor(store, {
      keepRevisions: 100,
      keepMs: 300_000,
      clock: () => now,
      intervalMs: 3_600_000,
    });
    churn(499); // revision 500
    expect(compactor.runOnce()).toBe(0); // nothing is 5 minutes old yet
    now = 60_000;
    churn(500); // 1000
    expect(compactor.runOnce()).toBe(0);
    now = 300_000; // the sample at t=0 (revision 500) is now old enough
    churn(500); // 1500
    expect(compactor.runOnce()).toBe(500);
    now = 360_000; // t=60 000 (revision 1000) is old enough
    expect(compactor.runOnce()).toBe(1000);
    now = 10_000_000; // everything is old; the revision bound (current - 100) wins
    expect(compactor.runOnce()).toBe(1400);
    expect(store.get('/r/a')?.value).toBe('1499');
  });

  it.each([
    [{ intervalMs: 0 }, /intervalMs/],
    [{ keepRevisions: -1 }, /keepRevisions/],
    [{ keepMs: 1.5 }, /keepMs/],
  ])('rejects %j', (opts, message) => {
    expect(() => startCompactor(store, opts)).toThrow(message);
  });
});
