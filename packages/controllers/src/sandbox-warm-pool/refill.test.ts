// Spec §21.4 sandboxwarmpool_controller_test.go: replenish delay (off, defer, re-arm, clear), the
// token bucket, refill pacing, and the not-progressing transitions with upstream's messages.
import { describe, expect, it } from 'vitest';
import {
  afterCreates,
  goDuration,
  progress,
  refundTokens,
  replenishHold,
  takeTokens,
  type RefillState,
} from './refill.ts';

describe('replenish delay', () => {
  it('off (0): never defers, even after a drop', () => {
    const a = replenishHold({}, 5, 5, 0, 0);
    const b = replenishHold(a.state, 3, 5, 10, 0);
    expect(b.holdMs).toBeUndefined();
  });

  it('the first observation never defers, even below desired', () => {
    expect(replenishHold({}, 2, 5, 0, 1_000).holdMs).toBeUndefined();
  });

  it('defer: a drop below the baseline holds creates for the delay, then lets them through', () => {
    const full = replenishHold({}, 5, 5, 0, 1_000).state;
    const drop = replenishHold(full, 4, 5, 100, 1_000);
    expect(drop.holdMs).toBe(1_000);
    const mid = replenishHold(drop.state, 4, 5, 600, 1_000);
    expect(mid.holdMs).toBe(500);
    const over = replenishHold(mid.state, 4, 5, 1_100, 1_000);
    expect(over.holdMs).toBeUndefined();
    expect(over.state.holdUntilMs).toBeUndefined();
  });

  it('re-arm: each further drop restarts the hold', () => {
    let s = replenishHold({}, 5, 5, 0, 1_000).state;
    s = replenishHold(s, 4, 5, 100, 1_000).state;
    const again = replenishHold(s, 3, 5, 800, 1_000);
    expect(again.holdMs).toBe(1_000);
  });

  it('a pass at or above desired clears the hold', () => {
    let s = replenishHold({}, 5, 5, 0, 1_000).state;
    s = replenishHold(s, 4, 5, 100, 1_000).state;
    const back = replenishHold(s, 5, 5, 200, 1_000);
    expect(back.state.holdUntilMs).toBeUndefined();
    expect(replenishHold(back.state, 5, 6, 300, 1_000).holdMs).toBeUndefined();
  });

  it('creates join the baseline: a loss during the refill re-arms the hold', () => {
    let s = replenishHold({}, 2, 5, 0, 1_000).state; // first pass: creates 3
    s = afterCreates(s, 3);
    expect(s.baseline).toBe(5);
    expect(replenishHold(s, 4, 5, 50, 1_000).holdMs).toBe(1_000);
  });
});

describe('refill token bucket', () => {
  it('unlimited (0) grants everything', () => {
    expect(takeTokens({}, 300, 0, 0).granted).toBe(300);
  });

  it('starts full at capacity max(1, rate) and grants whole tokens only', () => {
    const g = takeTokens({}, 10, 0, 4);
    expect(g.granted).toBe(4);
    const none = takeTokens(g.state, 10, 100, 4); // 0.4 tokens accrued
    expect(none.granted).toBe(0);
    expect(none.waitMs).toBe(150);
    const one = takeTokens(none.state, 10, 250, 4);
    expect(one.granted).toBe(1);
  });

  it('a fractional rate has capacity 1 and paces one create per 1/rate seconds', () => {
    const first = takeTokens({}, 5, 0, 0.5);
    expect(first.granted).toBe(1);
    const wait = takeTokens(first.state, 5, 1_000, 0.5);
    expect(wait).toMatchObject({ granted: 0, waitMs: 1_000 });
    expect(takeTokens(wait.state, 5, 2_000, 0.5).granted).toBe(1);
  });

  it('never accrues above capacity', () => {
    const g = takeTokens({}, 3, 0, 3);
    expect(takeTokens(g.state, 10, 60_000, 3).granted).toBe(3);
  });

  it('refunds tokens whose creates the expectations gate stopped (capped at capacity)', () => {
    const g = takeTokens({}, 2, 0, 2);
    const back: RefillState = refundTokens(g.state, 2, 2);
    expect(takeTokens(back, 5, 0, 2).granted).toBe(2);
    expect(refundTokens(back, 5, 2).tokens).toBe(2);
  });
});

describe('not progressing', () => {
  it('a Warning once per transition, a recheck while held, a Normal on recovery', () => {
    const held = progress({}, 2, 3, 300_000, 60_000);
    expect(held.event).toEqual({
      type: 'Warning',
      reason: 'WarmPoolNotProgressing',
      action: 'Reconciling',
      note: '2/3 sandboxes are unschedulable past the 5m0s readiness grace period; holding them instead of replacing (replacements would be equally unschedulable)',
    });
    expect(held.recheckMs).toBe(60_000);
    const still = progress(held.state, 1, 3, 300_000, 60_000);
    expect(still.event).toBeUndefined();
    expect(still.recheckMs).toBe(60_000);
    const ok = progress(still.state, 0, 3, 300_000, 60_000);
    expect(ok.event).toEqual({
      type: 'Normal',
      reason: 'WarmPoolProgressing',
      action: 'Reconciling',
      note: 'Warm pool is progressing again',
    });
    expect(progress(ok.state, 0, 3, 300_000, 60_000).event).toBeUndefined();
  });

  it("formats the grace like Go's Duration.String", () => {
    expect([0, 500, 1_500, 30_000, 90_000, 300_000, 3_600_000, 5_430_000].map(goDuration)).toEqual([
      '0s',
      '500ms',
      '1.5s',
      '30s',
      '1m30s',
      '5m0s',
      '1h0m0s',
      '1h30m30s',
    ]);
  });
});
