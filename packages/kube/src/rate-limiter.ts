// Client-side QPS/burst limiting, client-go's token bucket (flowcontrol.NewTokenBucketRateLimiter):
// `burst` tokens to start, refilled at `qps` per second; each request takes one.
import { realClock, sleep, type Clock } from './clock.ts';
import { InvalidArgumentError } from './errors.ts';

export interface TokenBucketOptions {
  /** Sustained requests per second; <= 0 disables limiting (the manager's `--kube-api-qps -1`). */
  qps: number;
  /** Bucket size. @default 10 */
  burst?: number;
  clock?: Clock;
}

export class TokenBucket {
  readonly #qps: number;
  readonly #burst: number;
  readonly #clock: Clock;
  #tokens: number;
  #last: number;

  constructor(options: TokenBucketOptions) {
    const burst = options.burst ?? 10;
    if (options.qps > 0 && !(burst >= 1))
      throw new InvalidArgumentError(`burst must be >= 1 when qps > 0, got ${burst}`);
    this.#qps = options.qps;
    this.#burst = burst;
    this.#clock = options.clock ?? realClock;
    this.#tokens = burst;
    this.#last = this.#clock.now();
  }

  /** Takes a token now if one is free, and returns how long the caller must wait for it (ms). */
  reserve(): number {
    if (this.#qps <= 0) return 0;
    const now = this.#clock.now();
    this.#tokens = Math.min(this.#burst, this.#tokens + ((now - this.#last) / 1000) * this.#qps);
    this.#last = now;
    this.#tokens -= 1; // may go negative: later callers queue behind this one
    return this.#tokens >= 0 ? 0 : (-this.#tokens / this.#qps) * 1000;
  }

  /** Waits until a token is available. */
  async acquire(signal?: AbortSignal): Promise<void> {
    const waitMs = this.reserve();
    if (waitMs > 0) await sleep(this.#clock, waitMs, signal);
  }
}
