// Spec §21.4 warmpool_expectations_test.go: creation and deletion lifecycles, the timeout, forget.
import { describe, expect, it } from 'vitest';
import { WarmPoolExpectations } from './expectations.ts';

describe('WarmPoolExpectations', () => {
  it('TestExpectations: creations gate further creations until observed', () => {
    const e = new WarmPoolExpectations();
    expect(e.tryExpectCreations('ns/p', 2, 0)).toBe(true);
    expect(e.satisfied('ns/p', 1)).toBe(false);
    expect(e.tryExpectCreations('ns/p', 1, 1)).toBe(false);
    e.lowerCreations('ns/p');
    e.lowerCreations('ns/p');
    expect(e.satisfied('ns/p', 2)).toBe(true);
    expect(e.tryExpectCreations('ns/p', 1, 2)).toBe(true);
  });

  it('TestExpectations: non-positive counts are rejected; empty UIDs ignored', () => {
    const e = new WarmPoolExpectations();
    expect(e.tryExpectCreations('ns/p', 0, 0)).toBe(false);
    e.expectDeletion('ns/p', '', 0);
    expect(e.satisfied('ns/p', 0)).toBe(true);
  });

  it('TestExpectations: deletions are pending until observed', () => {
    const e = new WarmPoolExpectations();
    e.expectDeletion('ns/p', 'u1', 0);
    expect(e.isPendingDeletion('ns/p', 'u1', 1)).toBe(true);
    expect(e.satisfied('ns/p', 1)).toBe(false);
    e.deletionObserved('ns/p', 'u1');
    expect(e.isPendingDeletion('ns/p', 'u1', 2)).toBe(false);
    expect(e.satisfied('ns/p', 2)).toBe(true);
  });

  it('TestExpectations: a record older than the timeout counts as satisfied; forget drops it', () => {
    const e = new WarmPoolExpectations(1000);
    e.tryExpectCreations('ns/p', 3, 0);
    e.expectDeletion('ns/q', 'u', 0);
    expect(e.satisfied('ns/p', 1001)).toBe(true);
    expect(e.isPendingDeletion('ns/q', 'u', 1001)).toBe(false);
    e.forget('ns/q');
    expect(e.satisfied('ns/q', 0)).toBe(true);
  });
});
