import { describe, expect, it } from 'vitest';
import { evictedImages, nextToFill, replacedRoot, type PoolImageState } from './root-pool-plan.ts';

const img = (lower: string, lastUsedMs: number, ready = 0): PoolImageState => ({
  lower,
  lastUsedMs,
  ready,
});
const limits = { size: 2, maxImages: 2, idleMs: 1000 };

describe('evictedImages', () => {
  it('keeps the most recently used images up to maxImages and drops the rest', () => {
    const images = [img('/a', 10), img('/b', 30), img('/c', 20)];
    expect(evictedImages(images, 40, limits)).toEqual(['/a']);
    expect(evictedImages(images, 40, { ...limits, maxImages: 1 })).toEqual(['/c', '/a']);
    expect(evictedImages(images, 40, { ...limits, maxImages: 3 })).toEqual([]);
  });

  it('drops an image not used for idleMs, however few images there are', () => {
    expect(evictedImages([img('/a', 0), img('/b', 500)], 1000, limits)).toEqual(['/a']);
    expect(evictedImages([img('/a', 1)], 1000, limits)).toEqual([]);
    expect(evictedImages([], 1000, limits)).toEqual([]);
  });
});

describe('nextToFill', () => {
  it('fills the most recently used image short of size first', () => {
    const images = [img('/a', 10, 0), img('/b', 30, 1), img('/c', 20, 0)];
    expect(nextToFill(images, limits)).toBe('/b');
    expect(nextToFill([img('/a', 10, 0), img('/b', 30, 2)], limits)).toBe('/a');
  });

  it('fills nothing when every image has size entries, or size is 0', () => {
    expect(nextToFill([img('/a', 10, 2), img('/b', 30, 3)], limits)).toBeUndefined();
    expect(nextToFill([img('/a', 10, 0)], { size: 0 })).toBeUndefined();
  });
});

describe('replacedRoot', () => {
  const names = new Map([
    ['busybox:v1', '/r1'],
    ['busybox:alias', '/r2'],
    ['other:v1', '/r2'],
  ]);

  it('is the root a name pointed at before, when the name now points elsewhere', () => {
    expect(replacedRoot(names, 'busybox:v1', '/r3')).toBe('/r1');
  });

  it('is undefined for a new name, the same root, or a root another name still points at', () => {
    expect(replacedRoot(names, 'new:v1', '/r1')).toBeUndefined();
    expect(replacedRoot(names, 'busybox:v1', '/r1')).toBeUndefined();
    expect(replacedRoot(names, 'busybox:alias', '/r3')).toBeUndefined(); // other:v1 keeps /r2
  });
});
