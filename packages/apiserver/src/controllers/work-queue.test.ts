import { describe, expect, it } from 'vitest';
import { WorkQueue } from './work-queue.ts';

function tick(ms = 0): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

describe('WorkQueue', () => {
  it('processes a key added several times once, in insertion order', async () => {
    const seen: string[] = [];
    const q = new WorkQueue({ reconcile: (k) => void seen.push(k) });
    q.add('a');
    q.add('b');
    q.add('a');
    expect(q.length).toBe(2);
    await q.idle();
    expect(seen).toEqual(['a', 'b']);
    q.stop();
  });

  it('runs a key again when it is added while being processed', async () => {
    const seen: string[] = [];
    const q = new WorkQueue({
      reconcile: (k) => {
        seen.push(k);
        if (seen.length === 1) q.add(k);
      },
    });
    q.add('a');
    await q.idle();
    await q.idle();
    expect(seen).toEqual(['a', 'a']);
    q.stop();
  });

  it('retries failures with a growing backoff and reports each one', async () => {
    const errors: string[] = [];
    let calls = 0;
    const q = new WorkQueue({
      reconcile: () => {
        calls++;
        if (calls < 3) throw new Error(`fail ${calls}`);
      },
      onError: (key, err) => errors.push(`${key}: ${(err as Error).message}`),
      baseDelayMs: 1,
    });
    q.add('k');
    await expect.poll(() => calls, { timeout: 5000 }).toBe(3);
    expect(errors).toEqual(['k: fail 1', 'k: fail 2']);
    q.stop();
  });

  it('yields to the event loop between batches', async () => {
    const seen: string[] = [];
    const q = new WorkQueue({ reconcile: (k) => void seen.push(k), batchSize: 2 });
    for (const k of ['a', 'b', 'c', 'd', 'e']) q.add(k);
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen.length).toBeLessThan(5);
    await q.idle();
    expect(seen).toEqual(['a', 'b', 'c', 'd', 'e']);
    q.stop();
  });

  it('does nothing after stop, and cancels pending retries', async () => {
    let calls = 0;
    const q = new WorkQueue({
      reconcile: () => {
        calls++;
        throw new Error('always');
      },
      // Long enough that the first retry cannot fire before stop() on a loaded machine, short
      // enough that the wait below would see it if stop() did not cancel it.
      baseDelayMs: 200,
    });
    q.add('k');
    await expect.poll(() => calls).toBe(1);
    q.stop();
    q.add('k');
    await tick(500);
    expect(calls).toBe(1);
    await q.idle();
  });
});
