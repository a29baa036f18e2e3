// The root pool's decisions, apart from its mounts (root-pool.ts): which image roots keep entries
// (the few started most recently, none idle too long), which one is refilled next, and when an
// image name now points at another root (the old root's entries are for an image replaced).

/** One image root the pool serves. */
export interface PoolImageState {
  /** The image's unpacked rootfs (the overlay's lower directory): the pool's key. */
  lower: string;
  /** When a container of it last asked for a root (the pool's clock, ms). */
  lastUsedMs: number;
  /** Entries ready for it. */
  ready: number;
}

export interface PoolLimits {
  /** Entries kept ready per image root. */
  size: number;
  /** The most image roots that keep entries: the most recently used ones. */
  maxImages: number;
  /** An image root not used for this long keeps none. */
  idleMs: number;
}

/** The image roots whose entries go: idle for `idleMs`, or beyond the `maxImages` most recent. */
export function evictedImages(
  images: readonly PoolImageState[],
  nowMs: number,
  limits: PoolLimits,
): string[] {
  const byRecency = [...images].sort((a, b) => b.lastUsedMs - a.lastUsedMs);
  return byRecency
    .filter((s, i) => i >= limits.maxImages || nowMs - s.lastUsedMs >= limits.idleMs)
    .map((s) => s.lower);
}

/** The image root to make the next entry for: the most recently used one short of `size`. */
export function nextToFill(
  images: readonly PoolImageState[],
  limits: Pick<PoolLimits, 'size'>,
): string | undefined {
  let best: PoolImageState | undefined;
  for (const s of images)
    if (s.ready < limits.size && (!best || s.lastUsedMs > best.lastUsedMs)) best = s;
  return best?.lower;
}

/**
 * The root image `name` pointed at before it pointed at `lower`, when no other name still points
 * at that root: a replaced image (a newer pull or load of the name), whose entries are stale.
 */
export function replacedRoot(
  names: ReadonlyMap<string, string>,
  name: string,
  lower: string,
): string | undefined {
  const before = names.get(name);
  if (before === undefined || before === lower) return undefined;
  for (const [other, root] of names) if (other !== name && root === before) return undefined;
  return before;
}
