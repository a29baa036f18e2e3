import { describe, expect, it } from 'vitest';
import { NetnsPool, type NetnsPoolOptions, type PoolEntry } from './netns-pool.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Polls until `ok` holds (fills run on timers: how soon depends on the machine's load). */
async function eventually(ok: () => boolean): Promise<void> {
  const end = Date.now() + 10_000;
  while (!ok() && Date.now() < end) await sleep(5);
}

/** A pool whose entries are numbered as they are made (the bridge network makes real ones). */
function pool(o: Partial<NetnsPoolOptions> = {}) {
  let n = 0;
  const removed: PoolEntry[] = [];
  const p = new NetnsPool({
    size: 2,
    refillDelayMs: 60_000,
    make: async () => ({ key: `k${++n}`, ip: `10.0.0.${n}` }),
    remove: async (e) => void removed.push(e),
    onError: () => undefined,
    ...o,
  });
  return { p, made: () => n, removed };
}

describe('NetnsPool', () => {
  it('fills to its size at start, and after a take only once idle() says no start runs', async () => {
    const { p, made } = pool();
    p.start();
    await eventually(() => p.readyCount === 2);
    expect(p.take()?.key).toBe('k1');
    await sleep(30);
    expect(p.readyCount).toBe(1); // the refill waits (60 s here) for the start that took one
    p.idle();
    await eventually(() => p.readyCount === 2);
    expect(p.readyCount).toBe(2);
    expect(made()).toBe(3);
    await p.drain();
  });

  it('refills after the delay when idle() never comes', async () => {
    const { p } = pool({ refillDelayMs: 20 });
    p.start();
    await eventually(() => p.readyCount === 2);
    p.take();
    await eventually(() => p.readyCount === 2);
    expect(p.readyCount).toBe(2);
    await p.drain();
  });

  it('keeps as many as the recent takes, up to maxSize, and falls back to its size after the window', async () => {
    const { p } = pool({ maxSize: 4, demandWindowMs: 300 });
    p.start();
    await eventually(() => p.readyCount === 2);
    for (let i = 0; i < 6; i++) p.take(); // a burst: 2 made ahead, 4 more made by their starts
    expect(p.target).toBe(4);
    p.idle();
    await eventually(() => p.readyCount === 4);
    expect(p.readyCount).toBe(4);
    await eventually(() => p.target === 2);
    expect(p.target).toBe(2);
    await p.drain();
  });

  it('drain removes what no Pod took and stops refilling', async () => {
    const { p, removed } = pool();
    p.start();
    await eventually(() => p.readyCount === 2);
    const taken = p.take();
    await p.drain();
    expect(removed.map((e) => e.key)).toEqual(['k2']);
    expect(taken?.key).toBe('k1');
    p.idle();
    await sleep(20);
    expect(p.readyCount).toBe(0);
  });

  it('renew drops the held entries gone stale and refills; one made stale is dropped too', async () => {
    let epoch = 0;
    const epochs = new Map<string, number>();
    let n = 0;
    let release: (() => void) | undefined;
    const { p, removed } = pool({
      make: async () => {
        const key = `k${++n}`;
        epochs.set(key, epoch);
        if (n === 4) await new Promise<void>((r) => (release = r)); // in flight across a renewal
        return { key, ip: `10.0.0.${n}` };
      },
      stale: (e) => epochs.get(e.key) !== epoch,
    });
    p.start();
    await eventually(() => p.readyCount === 2);
    await p.renew(); // nothing stale: both stay
    expect(removed).toEqual([]);
    expect(p.take()?.key).toBe('k1');
    p.idle();
    await eventually(() => p.readyCount === 2);
    expect(p.readyCount).toBe(2); // k2, k3
    p.take(); // k2
    p.idle(); // k4 is being made...
    await eventually(() => release !== undefined);
    epoch++; // ...when the bridge is made again
    await p.renew();
    expect(removed.map((e) => e.key)).toEqual(['k3']);
    release?.();
    await eventually(() => p.readyCount === 2);
    expect(removed.map((e) => e.key)).toEqual(['k3', 'k4']);
    expect([p.take()?.key, p.take()?.key]).toEqual(['k5', 'k6']);
    await p.drain();
  });
});
