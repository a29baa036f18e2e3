import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from './errors.ts';
import { TokenBucket } from './rate-limiter.ts';
import { FakeClock } from './testing/fake-clock.ts';

describe('TokenBucket', () => {
  it('allows a burst, then spaces requests at 1/qps', () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket({ qps: 10, burst: 3, clock });
    expect([bucket.reserve(), bucket.reserve(), bucket.reserve()]).toEqual([0, 0, 0]);
    expect(bucket.reserve()).toBeCloseTo(100);
    expect(bucket.reserve()).toBeCloseTo(200);
  });
  it('refills over time up to burst', async () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket({ qps: 2, burst: 2, clock });
    bucket.reserve();
    bucket.reserve();
    await clock.advance(10_000);
    expect([bucket.reserve(), bucket.reserve()]).toEqual([0, 0]);
    expect(bucket.reserve()).toBeCloseTo(500);
  });
  it('acquire waits on the clock; qps <= 0 never waits', async () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket({ qps: 1, burst: 1, clock });
    await bucket.acquire();
    let done = false;
    const p = bucket.acquire().then(() => (done = true));
    await clock.advance(999);
    expect(done).toBe(false);
    await clock.advance(1);
    await p;
    expect(done).toBe(true);
    const free = new TokenBucket({ qps: -1, clock });
    for (let i = 0; i < 100; i++) expect(free.reserve()).toBe(0);
  });
  it('rejects a burst below 1 with limiting on', () => {
    expect(() => new TokenBucket({ qps: 5, burst: 0 })).toThrow(InvalidArgumentError);
  });
});
