import { describe, expect, it } from 'vitest';
import { AdoptionsInFlight } from './adoptions-in-flight.ts';

/** Whether `p` settled by the time the macrotask queue drained once. */
async function settledNow(p: Promise<void>): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true));
  await new Promise((r) => setImmediate(r));
  return done;
}

describe('AdoptionsInFlight', () => {
  it('settles at once with nothing in flight', async () => {
    expect(await settledNow(new AdoptionsInFlight(60_000).settled())).toBe(true);
  });

  it('waits for every adoption, or for the one of a key, and ending twice counts once', async () => {
    const a = new AdoptionsInFlight(60_000);
    const endA = a.enter('ns/a');
    const endB = a.enter('ns/b');
    const all = a.settled();
    const forA = a.settled(undefined, 'ns/a');
    expect(await settledNow(a.settled(undefined, 'ns/c'))).toBe(true);
    endA();
    endA();
    expect(a.count()).toBe(1);
    expect(await settledNow(forA)).toBe(true);
    expect(await settledNow(all)).toBe(false);
    endB();
    expect(await settledNow(all)).toBe(true);
    expect(a.count()).toBe(0);
  });

  it('a wait ends after maxWaitMs or on abort, with the adoption still in flight', async () => {
    const a = new AdoptionsInFlight(20);
    a.enter('ns/a');
    const started = Date.now();
    await a.settled();
    expect(Date.now() - started).toBeGreaterThanOrEqual(15);
    const long = new AdoptionsInFlight(60_000);
    long.enter('ns/a');
    const abort = new AbortController();
    const waiting = long.settled(abort.signal);
    expect(await settledNow(waiting)).toBe(false);
    abort.abort();
    expect(await settledNow(waiting)).toBe(true);
    expect(await settledNow(long.settled(abort.signal))).toBe(true);
  });

  it('maxWaitMs 0 turns the waiting off', async () => {
    const a = new AdoptionsInFlight(0);
    a.enter('ns/a');
    expect(await settledNow(a.settled())).toBe(true);
  });
});
