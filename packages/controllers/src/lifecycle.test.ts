// §21.4 internal/lifecycle/expiry_test.go and the lifecycle helpers (shutdownTime, ttl after
// finished; spec §16).
import { describe, expect, it } from 'vitest';
import type { Condition } from '@agent-sandbox/api';
import { expireAt, finishedCondition, needsCleanup, timeLeft } from './lifecycle.ts';

const NOW = new Date('2026-01-01T00:00:00Z');
const finished: Condition = {
  type: 'Finished',
  status: 'True',
  reason: 'PodSucceeded',
  message: 'Pod completed successfully',
  lastTransitionTime: '2026-01-01T00:00:00Z',
};

describe('expireAt / timeLeft', () => {
  it.each([
    ['no expiry', undefined, undefined, undefined, undefined],
    ['ttl only', undefined, 60, finished, '2026-01-01T00:01:00.000Z'],
    ['ttl 0', undefined, 0, finished, '2026-01-01T00:00:00.000Z'],
    ['earlier shutdownTime wins', '2026-01-01T00:00:30Z', 60, finished, '2026-01-01T00:00:30.000Z'],
    ['ttl wins', '2026-01-01T01:00:00Z', 60, finished, '2026-01-01T00:01:00.000Z'],
    ['ttl without a finished condition does not apply', undefined, 60, undefined, undefined],
  ])('%s', (_name, shutdownTime, ttl, fin, want) => {
    expect(expireAt(shutdownTime, ttl, fin)?.toISOString()).toBe(want);
  });

  it('timeLeft: none, expired, remaining', () => {
    expect(timeLeft(NOW, undefined)).toEqual({ expired: false, remainingMs: 0 });
    expect(timeLeft(NOW, NOW)).toEqual({ expired: true, remainingMs: 0 });
    expect(timeLeft(NOW, new Date(NOW.getTime() + 1500))).toEqual({
      expired: false,
      remainingMs: 1500,
    });
  });
});

describe('finishedCondition / needsCleanup', () => {
  it('only a True condition counts', () => {
    expect(finishedCondition([finished], 'Finished')).toBe(finished);
    expect(finishedCondition([{ ...finished, status: 'False' }], 'Finished')).toBeUndefined();
    expect(needsCleanup(10, finished)).toBe(true);
    expect(needsCleanup(undefined, finished)).toBe(false);
    expect(needsCleanup(10, undefined)).toBe(false);
  });
});
