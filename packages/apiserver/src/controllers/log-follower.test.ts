import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../storage/index.ts';
import type { Store, WatchEvent } from '../storage/store.ts';
import { LogFollower } from './log-follower.ts';

describe('LogFollower', () => {
  let store: Store;
  beforeEach(() => {
    store = openStore({ path: ':memory:' });
  });
  afterEach(() => {
    store.close();
  });

  it('lists in pages at one revision, then delivers later changes exactly once', async () => {
    for (let i = 0; i < 5; i++) store.create(`/registry/core/configmaps/ns/cm-${i}`, `{"i":${i}}`);
    store.create('/other/key', '{}');
    const seen: string[] = [];
    let resets = 0;
    const follower = new LogFollower(
      store,
      {
        reset: () => resets++,
        observe: (e: WatchEvent) => void seen.push(`${e.type} ${e.key.split('/').pop() ?? ''}`),
        onError: (err) => {
          throw err;
        },
      },
      { pageSize: 2 },
    );
    follower.start();
    expect(resets).toBe(1);
    expect(seen).toEqual(['ADDED cm-0', 'ADDED cm-1', 'ADDED cm-2', 'ADDED cm-3', 'ADDED cm-4']);
    store.delete('/registry/core/configmaps/ns/cm-0');
    store.create('/registry/core/secrets/ns/s', '{}');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(seen.slice(5)).toEqual(['DELETED cm-0', 'ADDED s']);
    follower.stop();
    store.create('/registry/core/secrets/ns/t', '{}');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(seen).toHaveLength(7);
  });

  it('reports an observe failure and keeps following', async () => {
    const errors: unknown[] = [];
    const seen: string[] = [];
    const follower = new LogFollower(store, {
      reset: () => {},
      observe: (e) => {
        if (e.key.endsWith('bad')) throw new Error('bad event');
        seen.push(e.key);
      },
      onError: (err) => errors.push(err),
    });
    follower.start();
    store.create('/registry/core/configmaps/ns/bad', '{}');
    store.create('/registry/core/configmaps/ns/good', '{}');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(errors).toHaveLength(1);
    expect(seen).toEqual(['/registry/core/configmaps/ns/good']);
    follower.stop();
  });
});
