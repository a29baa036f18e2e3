// Work-queue rate limiters (client-go workqueue): per-key exponential backoff combined with an
// overall token bucket; the delay is the larger of the two (DefaultControllerRateLimiter).
import { TokenBucket, type Clock } from '@agent-sandbox/kube';
import { invalidArgument } from './errors.ts';

export interface RateLimiter<K> {
  /** How long to wait before `key` may be processed again; counts a failure. */
  when(key: K): number;
  /** Clears the failure history of `key` (after a success or a terminal error). */
  forget(key: K): void;
  /** Failures of `key` since the last forget. */
  numRequeues(key: K): number;
}

export interface ExponentialRateLimiterOptions {
  /** @default 5 */
  baseDelayMs?: number;
  /** @default 1_000_000 (1000 s, client-go's cap) */
  maxDelayMs?: number;
}

export class ExponentialFailureRateLimiter<K> implements RateLimiter<K> {
  readonly #base: number;
  readonly #max: number;
  readonly #failures = new Map<K, number>();

  constructor(options: ExponentialRateLimiterOptions = {}) {
    this.#base = options.baseDelayMs ?? 5;
    this.#max = options.maxDelayMs ?? 1_000_000;
    if (!(this.#base > 0) || !(this.#max >= this.#base))
      throw invalidArgument('need 0 < baseDelayMs <= maxDelayMs');
  }

  when(key: K): number {
    const n = this.#failures.get(key) ?? 0;
    this.#failures.set(key, n + 1);
    return Math.min(this.#base * 2 ** n, this.#max);
  }

  forget(key: K): void {
    this.#failures.delete(key);
  }

  numRequeues(key: K): number {
    return this.#failures.get(key) ?? 0;
  }
}

/** Overall retry rate across keys (client-go: 10 qps, burst 100). */
export class BucketRateLimiter<K> implements RateLimiter<K> {
  readonly #bucket: TokenBucket;
  constructor(options: { qps: number; burst: number; clock?: Clock }) {
    this.#bucket = new TokenBucket(options);
  }
  when(): number {
    return this.#bucket.reserve();
  }
  forget(): void {}
  numRequeues(): number {
    return 0;
  }
}

export class MaxOfRateLimiter<K> implements RateLimiter<K> {
  readonly #limiters: RateLimiter<K>[];
  constructor(...limiters: RateLimiter<K>[]) {
    this.#limiters = limiters;
  }
  when(key: K): number {
    return Math.max(0, ...this.#limiters.map((l) => l.when(key)));
  }
  forget(key: K): void {
    for (const l of this.#limiters) l.forget(key);
  }
  numRequeues(key: K): number {
    return Math.max(0, ...this.#limiters.map((l) => l.numRequeues(key)));
  }
}

/** client-go's DefaultControllerRateLimiter: 5 ms·2^n up to 1000 s, and 10 qps / 100 burst overall. */
export function defaultControllerRateLimiter<K>(clock?: Clock): RateLimiter<K> {
  return new MaxOfRateLimiter<K>(
    new ExponentialFailureRateLimiter<K>(),
    new BucketRateLimiter<K>({ qps: 10, burst: 100, ...(clock ? { clock } : {}) }),
  );
}
