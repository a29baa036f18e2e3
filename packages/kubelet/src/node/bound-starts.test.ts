import type { Pod } from '@agent-sandbox/kube-types';
import { describe, expect, it } from 'vitest';
import { BoundStarts, boundCopy, type BoundStartsOptions } from './bound-starts.ts';

const pod = (uid: string): Pod => ({
  metadata: { name: `p-${uid}`, namespace: 'ns', uid },
  spec: { containers: [{ name: 'c' }] },
  status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False' }] },
});

/** BoundStarts over a map of workers, recording what it asks of the agent. */
function harness(stored: (uid: string) => Pod | undefined, readAfterMs = 20) {
  const workers = new Set<string>();
  const observed: Pod[] = [];
  const vanished: string[] = [];
  const reads: string[] = [];
  const firstWords: string[] = [];
  const o: BoundStartsOptions = {
    nodeName: 'n1',
    observe: (p) => {
      observed.push(p);
      workers.add(p.metadata?.uid ?? '');
    },
    read: async (_ns, name) => {
      reads.push(name);
      return stored(name.slice(2));
    },
    vanished: (uid) => {
      vanished.push(uid);
      workers.delete(uid);
    },
    running: (uid) => workers.has(uid),
    onReadError: () => undefined,
    onDelivered: (uid) => firstWords.push(uid),
    readAfterMs,
  };
  return { starts: new BoundStarts(o), observed, vanished, reads, firstWords };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Polls until `ok` holds (reads run on timers: how soon depends on the machine's load). */
async function eventually(ok: () => boolean): Promise<void> {
  const end = Date.now() + 10_000;
  while (!ok() && Date.now() < end) await sleep(10);
}

describe('boundCopy', () => {
  it('is the Pod as a Binding leaves it: nodeName and PodScheduled=True', () => {
    const p = boundCopy(pod('u1'), 'n1', new Date('2026-12-03T06:00:00Z'));
    expect(p.spec?.nodeName).toBe('n1');
    expect(p.status?.conditions).toEqual([
      { type: 'PodScheduled', status: 'True', lastTransitionTime: '2026-12-03T06:00:00Z' },
    ]);
    expect(p.status?.phase).toBe('Pending');
  });
});

describe('BoundStarts', () => {
  it('starts the bound Pod at once; a delivery before the read ends the wait', async () => {
    const h = harness(() => pod('u1'));
    h.starts.binding('u1');
    h.starts.bound(pod('u1'));
    expect(h.observed.map((p) => p.spec?.nodeName)).toEqual(['n1']);
    expect(h.starts.delivered('u1', false)).toBe(true);
    expect(h.starts.delivered('u1', false)).toBe(true); // a duplicate: still the one worker's
    expect(h.firstWords).toEqual(['u1']);
    await sleep(60);
    expect(h.reads).toEqual([]);
    h.starts.stop();
  });

  it('starts nothing when the watch delivered the Pod while the Binding was out', () => {
    const h = harness(() => pod('u1'));
    h.starts.binding('u1');
    expect(h.starts.delivered('u1', false)).toBe(true);
    h.starts.bound(pod('u1'));
    expect(h.observed).toEqual([]);
    h.starts.stop();
  });

  it('reads a Pod the watch never delivers and hands the worker the stored object, again and again', async () => {
    const stored = { ...pod('u1'), metadata: { ...pod('u1').metadata, resourceVersion: '9' } };
    const h = harness(() => stored);
    h.starts.binding('u1');
    h.starts.bound(pod('u1'));
    await eventually(() => h.reads.length >= 2 && h.observed.length >= 3);
    expect(h.reads.length).toBeGreaterThanOrEqual(2);
    expect(h.observed.slice(1).every((p) => p.metadata?.resourceVersion === '9')).toBe(true);
    expect(h.vanished).toEqual([]);
    h.starts.stop();
  });

  it('stops the worker of a Pod the read finds gone, and ignores the watch replaying it until its DELETED', async () => {
    const h = harness(() => undefined);
    h.starts.binding('u1');
    h.starts.bound(pod('u1'));
    await eventually(() => h.vanished.length > 0);
    await sleep(60);
    expect(h.vanished).toEqual(['u1']);
    expect(h.reads).toEqual(['p-u1']); // nothing left to read
    expect(h.starts.delivered('u1', false)).toBe(false); // a replayed ADDED
    expect(h.starts.delivered('u1', true)).toBe(false); // its DELETED ends the memory
    expect(h.starts.delivered('u1', false)).toBe(true);
    h.starts.stop();
  });

  it('a Pod replaced under its name counts as gone', async () => {
    const h = harness(() => pod('other'));
    h.starts.binding('u1');
    h.starts.bound(pod('u1'));
    await eventually(() => h.vanished.length > 0);
    expect(h.vanished).toEqual(['u1']);
    h.starts.stop();
  });

  it('a failed Binding starts nothing', () => {
    const h = harness(() => pod('u1'));
    h.starts.binding('u1');
    h.starts.failed('u1');
    expect(h.starts.delivered('u1', false)).toBe(true);
    expect(h.observed).toEqual([]);
    h.starts.stop();
  });
});
