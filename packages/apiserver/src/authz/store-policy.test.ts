// The RBAC index over a real (in-memory) store: kept across writes to other keys, rebuilt when an
// RBAC object changes, and never left holding a write that was rolled back.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../storage/sqlite/open.ts';
import type { Store } from '../storage/store.ts';
import { StorePolicy } from './store-policy.ts';

const CR = '/registry/rbac.authorization.k8s.io/clusterroles/';
const CRB = '/registry/rbac.authorization.k8s.io/clusterrolebindings/';
const rules = (verb: string) => JSON.stringify({ rules: [{ verbs: [verb], resources: ['pods'] }] });
const binding = (role: string) =>
  JSON.stringify({
    roleRef: { kind: 'ClusterRole', name: role },
    subjects: [{ kind: 'User', name: 'u' }],
  });

let store: Store;
beforeEach(() => {
  store = openStore({ path: ':memory:' });
});
afterEach(() => store.close());

describe('StorePolicy', () => {
  it('sees RBAC writes at once, whatever else was written in between', () => {
    const policy = new StorePolicy(store);
    store.create(`${CR}reader`, rules('get'));
    expect(policy.clusterRole('reader')?.[0]?.verbs).toEqual(['get']);
    store.create('/registry/core/pods/default/p', '{}');
    store.create(`${CRB}b`, binding('reader'));
    expect(policy.clusterRoleBindings().map((b) => b.name)).toEqual(['b']);
    store.update(`${CR}reader`, rules('list'));
    store.create('/registry/core/pods/default/q', '{}');
    expect(policy.clusterRole('reader')?.[0]?.verbs).toEqual(['list']);
    store.delete(`${CRB}b`);
    expect(policy.clusterRoleBindings()).toEqual([]);
  });

  it('keeps the index across writes to other keys (same answers, one read)', () => {
    const policy = new StorePolicy(store);
    store.create(`${CR}reader`, rules('get'));
    const first = policy.clusterRoleBindings();
    for (let i = 0; i < 5; i++) store.create(`/registry/core/pods/default/p${i}`, '{}');
    expect(policy.clusterRoleBindings()).toBe(first); // the same array: not rebuilt
  });

  it('drops what a rolled-back transaction wrote', () => {
    const policy = new StorePolicy(store);
    store.create('/registry/core/pods/default/p', '{}');
    expect(() =>
      store.txn((tx) => {
        tx.create(`${CR}ghost`, rules('get'));
        expect(policy.clusterRole('ghost')).toBeDefined(); // read inside the transaction
        throw new Error('admission failed');
      }),
    ).toThrow('admission failed');
    expect(policy.clusterRole('ghost')).toBeUndefined();
  });
});
