// Spec §21.4 queue/simple_sandbox_queue_test.go and TestSandboxClaimAdoptionStrategy (NodeSpread).
import { describe, expect, it } from 'vitest';
import { WarmSandboxQueue, nodeSpread } from './warm-queue.ts';

const k = (name: string, nodeName?: string) => ({
  namespace: 'ns',
  name,
  ...(nodeName ? { nodeName } : {}),
});

describe('WarmSandboxQueue', () => {
  it('TestSimpleSandboxQueue: FIFO, dedup with nodeName updated in place, remove, removeQueue', () => {
    const q = new WarmSandboxQueue();
    const name = WarmSandboxQueue.queueName('ns', 'pool');
    expect(name).toBe('ns/pool');
    q.add(name, k('a'));
    q.add(name, k('b'));
    q.add(name, k('a', 'n1'));
    expect(q.keys(name)).toEqual([k('a', 'n1'), k('b')]);
    q.add(name, k('c'));
    q.remove(name, 'ns', 'b');
    expect(q.pop(name)).toEqual(k('a', 'n1'));
    expect(q.pop(name)).toEqual(k('c'));
    expect(q.pop(name)).toBeUndefined();
    q.add(name, k('d'));
    q.removeQueue(name);
    expect(q.size(name)).toBe(0);
  });

  it('TestSandboxEventHandler_Delete_RemovesGhostPods: removeEverywhere', () => {
    const q = new WarmSandboxQueue();
    q.add('ns/p1', k('a'));
    q.add('ns/p2', k('a'));
    q.removeEverywhere('ns', 'a');
    expect(q.size('ns/p1') + q.size('ns/p2')).toBe(0);
  });

  it('TestSandboxClaimAdoptionStrategy: NodeSpread picks the first key on the fullest node; none known → oldest', () => {
    expect(nodeSpread([k('a'), k('b')])).toBe(0);
    expect(nodeSpread([k('a', 'n1'), k('b', 'n2'), k('c', 'n2'), k('d')])).toBe(1);
    expect(nodeSpread([k('a'), k('b', 'n1')])).toBe(1);
  });
});
