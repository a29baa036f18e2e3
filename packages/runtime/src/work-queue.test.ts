import { FakeClock } from '@agent-sandbox/kube/testing';
import { describe, expect, it } from 'vitest';
import {
  ExponentialFailureRateLimiter,
  MaxOfRateLimiter,
  BucketRateLimiter,
} from './rate-limiter.ts';
import { WorkQueue, type WorkQueueMetrics } from './work-queue.ts';

function queue(clock = new FakeClock()): { q: WorkQueue<string>; clock: FakeClock } {
  return {
    q: new WorkQueue<string>({ clock, rateLimiter: new ExponentialFailureRateLimiter() }),
    clock,
  };
}

describe('WorkQueue', () => {
  it('deduplicates waiting keys and keeps FIFO order', async () => {
    const { q } = queue();
    q.add('a');
    q.add('b');
    q.add('a');
    expect(q.length).toBe(2);
    expect(await q.get()).toBe('a');
    expect(await q.get()).toBe('b');
  });

  it('never hands out a key that is being processed; a re-add waits for done()', async () => {
    const { q } = queue();
    q.add('a');
    const key = await q.get();
    q.add('a');
    q.add('a');
    expect(q.length).toBe(0);
    let next: string | undefined;
    void q.get().then((k) => (next = k));
    await Promise.resolve();
    expect(next).toBeUndefined();
    q.done(key ?? '');
    await Promise.resolve();
    expect(next).toBe('a');
    q.done('a');
    expect(q.length).toBe(0);
  });

  it('addAfter delays on the clock and the earliest pending delay wins', async () => {
    const { q, clock } = queue();
    q.addAfter('a', 1000);
    q.addAfter('a', 300);
    q.addAfter('a', 5000);
    expect(q.length).toBe(0);
    await clock.advance(299);
    expect(q.length).toBe(0);
    await clock.advance(1);
    expect(q.length).toBe(1);
    await clock.advance(10_000);
    expect(q.length).toBe(1); // the cancelled and later delays did not add it again
  });

  it('backs off exponentially per key and forget() resets it', async () => {
    const { q, clock } = queue();
    const delays: number[] = [];
    for (let i = 0; i < 4; i++) {
      const before = clock.now();
      q.addRateLimited('a');
      while (q.length === 0) await clock.advance(1);
      delays.push(clock.now() - before);
      q.done((await q.get()) ?? '');
    }
    expect(delays).toEqual([5, 10, 20, 40]);
    expect(q.numRequeues('a')).toBe(4);
    expect(q.numRequeues('b')).toBe(0);
    q.forget('a');
    expect(q.numRequeues('a')).toBe(0);
  });

  it('caps backoff, and the overall bucket limits retries across keys', () => {
    const exp = new ExponentialFailureRateLimiter<string>({ baseDelayMs: 100, maxDelayMs: 1000 });
    expect([1, 2, 3, 4, 5].map(() => exp.when('k'))).toEqual([100, 200, 400, 800, 1000]);
    const clock = new FakeClock();
    const both = new MaxOfRateLimiter<string>(
      new ExponentialFailureRateLimiter<string>(),
      new BucketRateLimiter<string>({ qps: 10, burst: 2, clock }),
    );
    expect([both.when('x'), both.when('y'), both.when('z')]).toEqual([5, 5, 100]);
  });

  it('shutdown releases waiting getters, drops queued and delayed keys, ignores new adds', async () => {
    const { q, clock } = queue();
    const waiting = q.get();
    q.shutdown();
    expect(await waiting).toBeUndefined();
    q.add('a');
    q.addAfter('b', 10);
    await clock.advance(100);
    expect(q.length).toBe(0);
    expect(await q.get()).toBeUndefined();
    expect(clock.pendingTimers).toBe(0);
  });

  it('reports depth, adds, retries and durations', async () => {
    const clock = new FakeClock();
    const seen = {
      adds: 0,
      retries: 0,
      depth: [] as number[],
      queue: [] as number[],
      work: [] as number[],
    };
    const metrics: WorkQueueMetrics = {
      add: () => seen.adds++,
      retry: () => seen.retries++,
      depth: (n) => seen.depth.push(n),
      queueDuration: (s) => seen.queue.push(s),
      workDuration: (s) => seen.work.push(s),
    };
    const q = new WorkQueue<string>({
      clock,
      metrics,
      rateLimiter: new ExponentialFailureRateLimiter(),
    });
    q.add('a');
    q.add('a');
    await clock.advance(2000);
    const k = (await q.get()) ?? '';
    await clock.advance(500);
    q.done(k);
    q.addRateLimited('a');
    expect(seen).toMatchObject({ adds: 1, retries: 1, depth: [1, 0], queue: [2], work: [0.5] });
  });
});
