// The Node authorizer's graph keeps what it parsed between requests: every write after a read
// (a Pod added, bound elsewhere, given another volume, deleted) shows in the next answer.
import { describe, expect, it } from 'vitest';
import { openStore } from '../storage/index.ts';
import { StoreNodeGraph } from './store-node-graph.ts';

const key = (ns: string, name: string) => `/registry/core/pods/${ns}/${name}`;
const pod = (name: string, nodeName: string | undefined, configMap: string) =>
  JSON.stringify({
    metadata: { name },
    spec: {
      ...(nodeName ? { nodeName } : {}),
      serviceAccountName: `${name}-sa`,
      containers: [{ name: 'c' }],
      volumes: [{ name: 'v', configMap: { name: configMap } }],
    },
  });

const names = (graph: StoreNodeGraph, node: string, ns = 'a') =>
  graph.podsOn(node, ns).map((p) => `${p.name}:${p.serviceAccountName}:${p.configMaps.join(',')}`);

describe('StoreNodeGraph', () => {
  it('answers from the store as it is now, across reads', () => {
    const store = openStore({ path: ':memory:' });
    const graph = new StoreNodeGraph(store);
    store.create(key('a', 'p1'), pod('p1', 'n1', 'cm1'));
    store.create(key('a', 'p2'), pod('p2', 'n2', 'cm2'));
    store.create(key('b', 'p3'), pod('p3', 'n1', 'cm3'));
    expect(names(graph, 'n1')).toEqual(['p1:p1-sa:cm1']);
    expect(names(graph, 'n1')).toEqual(['p1:p1-sa:cm1']); // unchanged namespace
    expect(names(graph, 'n1', 'b')).toEqual(['p3:p3-sa:cm3']);

    store.create(key('a', 'p4'), pod('p4', 'n1', 'cm4')); // added
    expect(names(graph, 'n1')).toEqual(['p1:p1-sa:cm1', 'p4:p4-sa:cm4']);

    const p1 = store.get(key('a', 'p1'));
    store.update(key('a', 'p1'), pod('p1', 'n1', 'other'), p1?.revision); // another volume
    expect(names(graph, 'n1')).toEqual(['p1:p1-sa:other', 'p4:p4-sa:cm4']);

    store.update(key('a', 'p4'), pod('p4', 'n2', 'cm4')); // bound elsewhere
    expect(names(graph, 'n1')).toEqual(['p1:p1-sa:other']);
    expect(names(graph, 'n2')).toEqual(['p2:p2-sa:cm2', 'p4:p4-sa:cm4']);

    store.delete(key('a', 'p1')); // gone: nothing left on n1 in a
    expect(names(graph, 'n1')).toEqual([]);
    // A write in another namespace does not change this one's answer.
    store.delete(key('b', 'p3'));
    expect(names(graph, 'n1', 'b')).toEqual([]);
    expect(names(graph, 'n2')).toEqual(['p2:p2-sa:cm2', 'p4:p4-sa:cm4']);
    store.close();
  });

  it('skips a Pod whose value is not JSON, and unbound Pods', () => {
    const store = openStore({ path: ':memory:' });
    const graph = new StoreNodeGraph(store);
    store.create(key('a', 'bad'), '{not json');
    store.create(key('a', 'pending'), pod('pending', undefined, 'cm'));
    store.create(key('a', 'ok'), pod('ok', 'n1', 'cm'));
    expect(names(graph, 'n1')).toEqual(['ok:ok-sa:cm']);
    store.close();
  });
});
