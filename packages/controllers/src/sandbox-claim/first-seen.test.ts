// Spec §21.3 TestGetOrRecordObservedTime / TestObservedTimeMapCompareAndDeletePreservesNewerUID:
// the first-seen map is keyed by name and UID, and a delete names the UID it means.
import { describe, expect, it } from 'vitest';
import { FirstSeenTimes } from './first-seen.ts';

describe('FirstSeenTimes', () => {
  it('TestGetOrRecordObservedTime: the first observation wins; a recreated claim (new UID) starts over', () => {
    const seen = new FirstSeenTimes();
    seen.observe('ns/c', 'uid-1', 1_000);
    seen.observe('ns/c', 'uid-1', 2_000);
    expect(seen.get('ns/c', 'uid-1')).toBe(1_000);
    expect(seen.get('ns/c', 'uid-2')).toBeUndefined();
    seen.observe('ns/c', 'uid-2', 3_000);
    expect(seen.get('ns/c', 'uid-2')).toBe(3_000);
    expect(seen.get('ns/c', 'uid-1')).toBeUndefined();
    expect(seen.size).toBe(1);
  });

  it('TestObservedTimeMapCompareAndDeletePreservesNewerUID: a delete for the old UID keeps the newer entry', () => {
    const seen = new FirstSeenTimes();
    seen.observe('ns/c', 'uid-1', 1_000);
    seen.observe('ns/c', 'uid-2', 2_000);
    seen.drop('ns/c', 'uid-1');
    expect(seen.get('ns/c', 'uid-2')).toBe(2_000);
    seen.drop('ns/c', 'uid-2');
    expect(seen.size).toBe(0);
  });

  it('TestSandboxClaimReconcileCleanup: a drop without a UID (Ready, NotFound) removes whatever is there', () => {
    const seen = new FirstSeenTimes();
    seen.observe('ns/a', 'uid-a', 1);
    seen.observe('ns/b', 'uid-b', 2);
    seen.drop('ns/a');
    expect(seen.get('ns/a', 'uid-a')).toBeUndefined();
    expect(seen.get('ns/b', 'uid-b')).toBe(2);
    expect(seen.size).toBe(1);
  });
});
