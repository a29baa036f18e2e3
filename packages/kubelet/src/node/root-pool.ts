// Container roots mounted ahead (ADR 0044): for each image started recently on this node, a few
// empty overlays (fresh upper and work directories, merged mounted) wait in <data dir>/rootpool.
// A container's start takes one with a rename into its instance directory (`dir/fs`, where every
// root lives and whence every cleanup removes it) instead of spawning `mount` on its start path;
// refills run in the background once no start is under way (idle()), or a while after a take
// otherwise. An entry is handed out once and never comes back: no data of one sandbox can reach
// another. Entries are keyed by the image's unpacked root and checked against that directory's
// identity when taken, so a replaced or removed image's roots are never used.
import type { Pod } from '@agent-sandbox/kube-types';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { errorMessage, InvalidArgumentError, RuntimeError } from '../errors.ts';
import {
  mountOverlay,
  overlayMounts,
  removeMountedDir,
  type ContainerRootfs,
} from './container-rootfs.ts';
import { evictedImages, nextToFill, replacedRoot, type PoolLimits } from './root-pool-plan.ts';

export interface RootPoolOptions extends PoolLimits {
  /** Holds the entries (the agent's data dir's `rootpool`). */
  dir: string;
  /**
   * The longest wait after a take before one entry is made, even while starts are under way
   * (they may never stop). @default 2000
   */
  refillDelayMs?: number;
  /**
   * Wait after idle() before refilling: the Pod that just started runs its first command
   * without a `mount` spawn beside it. @default 250
   */
  idleRefillDelayMs?: number;
  /** Whether a Pod start is under way: an idle refill waits for the next idle(). */
  busy(): boolean;
  /** The clock for idleness (ms). @default performance.now */
  now?: () => number;
  /** Hears a removal that failed, or the pool turning itself off. */
  onError(err: unknown): void;
}

/** The image a container's root is asked for: its stored name and unpacked root. */
export interface PoolImage {
  name: string;
  lower: string;
}

interface Entry {
  dir: string;
  /** The image root's identity when the entry was mounted (rootIdentity). */
  identity: string;
}

interface ImageEntries {
  lastUsedMs: number;
  ready: Entry[];
}

/** Where an agent with data dir `dataDir` keeps its pool (`image rm` looks there too). */
export function rootPoolDir(dataDir: string): string {
  return join(dataDir, 'rootpool');
}

/**
 * Unmounts and removes the pooled roots over image root `lower` of the agent with data dir
 * `dataDir` (`image rm`, in another process than the agent: the agent's pool then finds them
 * gone and drops them); resolves to how many there were.
 */
export async function removePooledRoots(dataDir: string, lower: string): Promise<number> {
  const pool = `${rootPoolDir(dataDir)}/`;
  const entries = (await overlayMounts())
    .filter((m) => m.lower === lower && m.mountPoint.startsWith(pool))
    .map((m) => dirname(m.mountPoint));
  for (const e of entries) await removeMountedDir(e);
  return entries.length;
}

/**
 * Device, inode and birth time of an image root, undefined when it is gone: a root removed and
 * unpacked again at the same path is another directory, which old overlays do not show.
 */
function rootIdentity(lower: string): string | undefined {
  try {
    const s = statSync(lower, { bigint: true });
    return `${s.dev}:${s.ino}:${s.birthtimeNs}`;
  } catch {
    return undefined;
  }
}

export class RootPool {
  readonly #o: RootPoolOptions;
  readonly #now: () => number;
  readonly #images = new Map<string, ImageEntries>();
  /** Image name → the root it was last started from (replacedRoot). */
  readonly #names = new Map<string, string>();
  readonly #removing = new Set<Promise<void>>();
  #open = false;
  #disabled = false;
  #seq = 0;
  #timer: NodeJS.Timeout | undefined;
  /** When the pending timer fires (performance.now()). */
  #timerDue = Infinity;
  /** Since when a take is owed its refill (performance.now()); undefined: none owed. */
  #owedSince: number | undefined;
  #sweep: NodeJS.Timeout | undefined;
  #filling: Promise<void> | undefined;

  constructor(options: RootPoolOptions) {
    this.#o = options;
    this.#now = options.now ?? (() => performance.now());
  }

  /**
   * Removes what a previous run left in the pool's directory (no container uses it: a take
   * moves its entry out) and starts serving takes; entries are made for the images taken.
   */
  async start(): Promise<void> {
    await removeMountedDir(this.#o.dir);
    if (this.#o.size === 0) return;
    await mkdir(this.#o.dir, { recursive: true, mode: 0o700 });
    this.#open = true;
    this.#sweep = setInterval(() => this.#sweepNow(), Math.min(this.#o.idleMs, 60_000));
    this.#sweep.unref();
  }

  /**
   * A ready root over `image.lower`, moved to `target` (a container's `dir/fs`, its root then at
   * `target/merged`) and now the caller's; undefined when none is ready (the caller mounts its
   * own). Synchronous: a stat and a rename. Either way the image counts as started now.
   */
  take(image: PoolImage, target: string): ContainerRootfs | undefined {
    if (!this.#open || this.#disabled) return undefined;
    this.#use(image);
    const entry = this.#images.get(image.lower)?.ready.shift();
    this.#owedSince ??= performance.now();
    this.#schedule(this.#refillDelayMs);
    if (!entry) return undefined;
    if (rootIdentity(image.lower) !== entry.identity) {
      // The image's root was removed or unpacked again since these were mounted.
      this.#dropReady(image.lower);
      this.#remove(entry.dir);
      return undefined;
    }
    try {
      mkdirSync(dirname(target), { recursive: true });
      renameSync(entry.dir, target);
    } catch (err) {
      // ENOENT: removed from outside (`image rm` drops the pooled roots of what it removes).
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
        this.#o.onError(new RuntimeError('Runtime', `taking a pooled root: ${errorMessage(err)}`));
      this.#remove(entry.dir);
      return undefined;
    }
    return { path: join(target, 'merged'), mode: 'overlay' };
  }

  /** No Pod start is under way: refill soon rather than after the take's delay. */
  idle(): void {
    this.#schedule(this.#o.idleRefillDelayMs ?? 250);
  }

  /** Entries ready over `lower`. */
  readyCount(lower: string): number {
    return this.#images.get(lower)?.ready.length ?? 0;
  }

  /** Stops refilling and removes every entry no container took; start() serves again. */
  async drain(): Promise<void> {
    this.#open = false;
    clearTimeout(this.#timer);
    clearInterval(this.#sweep);
    this.#timer = undefined;
    this.#timerDue = Infinity;
    await this.#filling;
    for (const lower of [...this.#images.keys()]) this.#forget(lower);
    await Promise.all([...this.#removing]);
  }

  /** `image` was started now; the name's previous root, if replaced, and evicted images go. */
  #use(image: PoolImage): void {
    const old = replacedRoot(this.#names, image.name, image.lower);
    this.#names.set(image.name, image.lower);
    if (old !== undefined) this.#forget(old);
    const s = this.#images.get(image.lower) ?? { lastUsedMs: 0, ready: [] };
    s.lastUsedMs = this.#now();
    this.#images.set(image.lower, s);
    this.#evict();
  }

  /**
   * Idle and least recent images lose their entries; entries over a changed root go (their
   * mounts would hold a removed image's files), and those removed from outside are forgotten.
   */
  #sweepNow(): void {
    this.#evict();
    for (const [lower, s] of this.#images) {
      if (s.ready.some((e) => e.identity !== rootIdentity(lower))) this.#dropReady(lower);
      s.ready = s.ready.filter((e) => existsSync(e.dir));
    }
  }

  #evict(): void {
    const states = [...this.#images].map(([lower, s]) => ({ lower, ...s, ready: s.ready.length }));
    for (const lower of evictedImages(states, this.#now(), this.#o)) this.#forget(lower);
  }

  /** The image root is no longer served: its entries go, and the names pointing at it. */
  #forget(lower: string): void {
    this.#dropReady(lower);
    this.#images.delete(lower);
    for (const [name, root] of this.#names) if (root === lower) this.#names.delete(name);
  }

  #dropReady(lower: string): void {
    for (const e of this.#images.get(lower)?.ready.splice(0) ?? []) this.#remove(e.dir);
  }

  #remove(dir: string): void {
    const p: Promise<void> = removeMountedDir(dir)
      .catch((err: unknown) => this.#o.onError(err))
      .finally(() => this.#removing.delete(p));
    this.#removing.add(p);
  }

  get #refillDelayMs(): number {
    return this.#o.refillDelayMs ?? 2000;
  }

  /** A refill in `ms`, unless one is due sooner; after it, the owed refill's turn if still owed. */
  #schedule(ms: number): void {
    if (!this.#open || this.#disabled || this.#filling) return;
    const due = performance.now() + ms;
    if (this.#timer && this.#timerDue <= due) return;
    clearTimeout(this.#timer);
    this.#timerDue = due;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#timerDue = Infinity;
      this.#filling = this.#fill().finally(() => {
        this.#filling = undefined;
        const owed = this.#owedSince;
        if (owed !== undefined)
          this.#schedule(Math.max(0, owed + this.#refillDelayMs - performance.now()));
      });
    }, ms);
    this.#timer.unref();
  }

  /**
   * Makes entries, most recently used image first, until each has `size`; while a start is
   * under way only the entry a take has been owed for refillDelayMs.
   */
  async #fill(): Promise<void> {
    while (this.#open && !this.#disabled) {
      const owed = this.#owedSince;
      const overdue = owed !== undefined && performance.now() - owed >= this.#refillDelayMs;
      if (this.#o.busy() && !overdue) return;
      this.#evict();
      const states = [...this.#images].map(([lower, s]) => ({
        lower,
        ...s,
        ready: s.ready.length,
      }));
      const lower = nextToFill(states, this.#o);
      const s = lower === undefined ? undefined : this.#images.get(lower);
      if (lower === undefined || !s) {
        this.#owedSince = undefined; // every image is full
        return;
      }
      const identity = rootIdentity(lower);
      if (identity === undefined) {
        this.#forget(lower); // removed (`image rm`): nothing to mount over
        continue;
      }
      const dir = join(this.#o.dir, `${++this.#seq}-${randomBytes(4).toString('hex')}`);
      const failed = await mountOverlay(lower, dir).catch((err: unknown) => errorMessage(err));
      if (failed !== undefined) {
        this.#remove(dir);
        this.#disable(lower, failed);
        return;
      }
      this.#owedSince = undefined; // the take's entry is made (more follow only while idle)
      // Dropped while it was mounted (the image replaced, evicted, the pool drained): not one to hand out.
      if (this.#open && this.#images.get(lower) === s) s.ready.push({ dir, identity });
      else this.#remove(dir);
    }
  }

  /** Overlay cannot be mounted here (copy mode): the pool does nothing from now on. */
  #disable(lower: string, why: string): void {
    this.#disabled = true;
    for (const l of [...this.#images.keys()]) this.#forget(l);
    this.#o.onError(
      new RuntimeError(
        'Runtime',
        `the root pool is off: an overlay of ${lower} cannot be mounted (${why}); each container mounts its own root`,
      ),
    );
  }
}

/** NodeAgentOptions' root pool settings (root-pool.ts, ADR 0044). */
export interface RootPoolSettings {
  /** Empty overlay roots kept mounted per recently started image; 0: no pool. @default 2 */
  rootPoolSize?: number;
  /** The most images (the most recently started) the pool keeps roots for. @default 3 */
  rootPoolImages?: number;
  /** An image not started for this long loses its pooled roots. @default 600_000 */
  rootPoolIdleMs?: number;
  /**
   * Whether a Pod's containers take pooled roots; a function decides per Pod (bench:node's
   * interleaved A/B). @default every Pod
   */
  rootPoolFor?: (pod: Pod) => boolean;
}

/** The pool's limits from the agent's settings, defaults applied; throws naming a bad field. */
export function rootPoolLimits(s: RootPoolSettings): PoolLimits {
  const size = s.rootPoolSize ?? 2;
  const maxImages = s.rootPoolImages ?? 3;
  const idleMs = s.rootPoolIdleMs ?? 600_000;
  if (!Number.isInteger(size) || size < 0)
    throw new InvalidArgumentError(
      `rootPoolSize must be a whole number ≥ 0 (got ${size}): the roots kept mounted per image; 0 turns the pool off`,
    );
  if (!Number.isInteger(maxImages) || maxImages < 1)
    throw new InvalidArgumentError(
      `rootPoolImages must be a whole number ≥ 1 (got ${maxImages}): how many images keep pooled roots`,
    );
  if (!(idleMs > 0))
    throw new InvalidArgumentError(
      `rootPoolIdleMs must be a positive number of ms (got ${idleMs}): how long an image not started keeps its roots`,
    );
  return { size, maxImages, idleMs };
}
