// §21.2 writebehind_coalesce_test.go, as a pure clock.
import { describe, expect, it } from 'vitest';
import {
  WriteBehindClock,
  isDeferrable,
  writeBehindDecision,
  writeBehindWindowMs,
} from './write-behind.ts';

describe('write-behind (§11.9)', () => {
  it('window 0 is synchronous', () => {
    expect(writeBehindDecision(undefined, 0, writeBehindWindowMs(0))).toEqual({ write: true });
  });

  it('the window is capped at 1s', () => {
    expect(writeBehindWindowMs(5_000)).toBe(1_000);
    expect(writeBehindWindowMs(250)).toBe(250);
  });

  it('deferred: zero writes, requeue ≤ 1s, redeliveries do not re-arm, exactly one write after the window', () => {
    const clock = new WriteBehindClock();
    const window = writeBehindWindowMs(5_000);
    expect(clock.decide('default/sb', 1_000, window)).toEqual({
      write: false,
      firstSeenMs: 1_000,
      requeueAfterMs: 1_000,
    });
    expect(clock.decide('default/sb', 1_400, window)).toEqual({
      write: false,
      firstSeenMs: 1_000,
      requeueAfterMs: 600,
    });
    expect(clock.decide('default/sb', 1_999, window)).toEqual({
      write: false,
      firstSeenMs: 1_000,
      requeueAfterMs: 1,
    });
    expect(clock.decide('default/sb', 2_000, window)).toEqual({ write: true });
    expect(clock.size).toBe(0);
  });

  it('a crash (lost clock) only restarts the window', () => {
    const window = 500;
    const before = new WriteBehindClock();
    before.decide('default/sb', 0, window);
    const after = new WriteBehindClock();
    expect(after.decide('default/sb', 400, window)).toEqual({
      write: false,
      firstSeenMs: 400,
      requeueAfterMs: 500,
    });
    expect(after.decide('default/sb', 900, window)).toEqual({ write: true });
  });

  it('only a non-adopting metadata patch is deferrable (ownership changes stay synchronous)', () => {
    const patch = { metadata: { labels: { a: 'b' } } };
    expect(isDeferrable({ action: 'Patch', name: 'p', patch, adopt: false })).toBe(true);
    expect(isDeferrable({ action: 'Patch', name: 'p', patch, adopt: true })).toBe(false);
    expect(isDeferrable({ action: 'Delete', name: 'p' })).toBe(false);
  });
});
