import { describe, expect, it } from 'vitest';
import { indexedObject, isTracked, OwnerIndex, sameOwners } from './owner-index.ts';

const ref = (uid: string, blockOwnerDeletion?: boolean) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  name: uid,
  uid,
  ...(blockOwnerDeletion === undefined ? {} : { blockOwnerDeletion }),
});

describe('indexedObject', () => {
  it('merges duplicate references, blocking if any copy blocks', () => {
    const node = indexedObject('/k', { uid: 'd', ownerReferences: [ref('o'), ref('o', true)] });
    expect(node?.owners).toEqual([{ uid: 'o', blocking: true }]);
  });

  it('reads the collector finalizers only while the object is being deleted', () => {
    const live = indexedObject('/k', { uid: 'o', finalizers: ['foregroundDeletion'] });
    expect(live?.deletingDependents).toBe(false);
    expect(live && isTracked(live)).toBe(false);
    const deleting = indexedObject('/k', {
      uid: 'o',
      deletionTimestamp: '2026-01-01T00:00:00Z',
      finalizers: ['orphan'],
    });
    expect(deleting).toMatchObject({ deleting: true, orphaningDependents: true });
    expect(deleting && isTracked(deleting)).toBe(true);
  });

  it('skips objects without a uid', () => {
    expect(indexedObject('/k', {})).toBeUndefined();
  });
});

describe('OwnerIndex', () => {
  it('finds dependents and blocking dependents by owner uid, and forgets them', () => {
    const index = new OwnerIndex();
    const a = indexedObject('/a', { uid: 'a', ownerReferences: [ref('o', true)] });
    const b = indexedObject('/b', { uid: 'b', ownerReferences: [ref('o', false), ref('p')] });
    if (!a || !b) throw new Error('unindexable');
    index.set(a);
    index.set(b);
    expect(index.dependentsOf('o').sort()).toEqual(['/a', '/b']);
    expect(index.blockingDependentsOf('o')).toEqual(['/a']);
    expect(index.byUid('b')?.key).toBe('/b');

    // A new version of /a without the reference moves it out of o's dependents.
    const a2 = indexedObject('/a', { uid: 'a', ownerReferences: [ref('p')] });
    if (!a2) throw new Error('unindexable');
    expect(index.set(a2)).toBe(a);
    expect(index.dependentsOf('o')).toEqual(['/b']);
    expect(index.dependentsOf('p').sort()).toEqual(['/a', '/b']);

    index.delete('/b');
    expect(index.dependentsOf('o')).toEqual([]);
    expect(index.byUid('b')).toBeUndefined();
    index.clear();
    expect(index.hasDependents).toBe(false);
  });

  it('compares owner lists as sets', () => {
    expect(
      sameOwners(
        [
          { uid: 'a', blocking: true },
          { uid: 'b', blocking: false },
        ],
        [
          { uid: 'b', blocking: false },
          { uid: 'a', blocking: true },
        ],
      ),
    ).toBe(true);
    expect(sameOwners([{ uid: 'a', blocking: true }], [{ uid: 'a', blocking: false }])).toBe(false);
  });
});
