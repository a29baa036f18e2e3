// WorkQueue: client-go's rate-limited, delaying work queue. A key waiting in the queue is stored
// once however often it is added (dirty set); a key being processed is never handed out again
// until done() (processing set) — re-adds meanwhile are deferred to done(), so one key is never
// reconciled concurrently (STYLE house style 1). The embedded API server's in-server loops keep
// their own synchronous queue with the same key rules (ADR 0024).
import { realClock, type Clock, type TimerHandle } from '@agent-sandbox/kube';
import { defaultControllerRateLimiter, type RateLimiter } from './rate-limiter.ts';

/** Hooks for workqueue_* metrics; all optional. Durations in seconds. */
export interface WorkQueueMetrics {
  add(): void;
  depth(n: number): void;
  queueDuration(seconds: number): void;
  workDuration(seconds: number): void;
  retry(): void;
}

export interface WorkQueueOptions<K> {
  /** @default client-go's default controller rate limiter */
  rateLimiter?: RateLimiter<K>;
  clock?: Clock;
  metrics?: WorkQueueMetrics;
}

export class WorkQueue<K = string> {
  readonly #queue: K[] = [];
  readonly #dirty = new Set<K>();
  readonly #processing = new Set<K>();
  readonly #addedAt = new Map<K, number>();
  readonly #startedAt = new Map<K, number>();
  /** Delayed adds: the earliest due time wins (client-go waitingForQueue). */
  readonly #waiting = new Map<K, { at: number; timer: TimerHandle }>();
  readonly #getters: ((key: K | undefined) => void)[] = [];
  readonly #limiter: RateLimiter<K>;
  readonly #clock: Clock;
  readonly #metrics: WorkQueueMetrics | undefined;
  #shuttingDown = false;

  constructor(options: WorkQueueOptions<K> = {}) {
    this.#clock = options.clock ?? realClock;
    this.#limiter = options.rateLimiter ?? defaultControllerRateLimiter<K>(this.#clock);
    this.#metrics = options.metrics;
  }

  /** Keys waiting to be handed out (not counting delayed or in-process ones). */
  get length(): number {
    return this.#queue.length;
  }

  get shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /** Adds `key` unless it is already waiting. Ignored after shutdown. */
  add(key: K): void {
    if (this.#shuttingDown || this.#dirty.has(key)) return;
    this.#metrics?.add();
    this.#dirty.add(key);
    this.#addedAt.set(key, this.#clock.now());
    if (this.#processing.has(key)) return; // done() re-queues it
    this.#push(key);
  }

  /** Adds `key` after `delayMs`; an earlier pending delay for the same key wins. */
  addAfter(key: K, delayMs: number): void {
    if (this.#shuttingDown) return;
    if (delayMs <= 0) {
      this.add(key);
      return;
    }
    const at = this.#clock.now() + delayMs;
    const pending = this.#waiting.get(key);
    if (pending && pending.at <= at) return;
    pending?.timer.cancel();
    const timer = this.#clock.setTimer(() => {
      this.#waiting.delete(key);
      this.add(key);
    }, delayMs);
    this.#waiting.set(key, { at, timer });
  }

  /** Adds `key` after the rate limiter's backoff for it. */
  addRateLimited(key: K): void {
    this.#metrics?.retry();
    this.addAfter(key, this.#limiter.when(key));
  }

  /** Ends backoff tracking of `key` (call after a success or a terminal failure). */
  forget(key: K): void {
    this.#limiter.forget(key);
  }

  numRequeues(key: K): number {
    return this.#limiter.numRequeues(key);
  }

  /**
   * Waits for the next key and marks it as processing; the caller must call done(key).
   * Resolves undefined once the queue is shut down and empty.
   */
  get(): Promise<K | undefined> {
    const key = this.#take();
    if (key !== undefined || this.#shuttingDown) return Promise.resolve(key);
    return new Promise((resolve) => this.#getters.push(resolve));
  }

  /** Marks `key` as processed; if it was added meanwhile, it goes back in the queue. */
  done(key: K): void {
    this.#processing.delete(key);
    const started = this.#startedAt.get(key);
    this.#startedAt.delete(key);
    if (started !== undefined) this.#metrics?.workDuration((this.#clock.now() - started) / 1000);
    if (this.#dirty.has(key)) this.#push(key);
  }

  /**
   * Stops accepting keys, drops queued and delayed ones, and resolves waiting get() calls with
   * undefined. Keys being processed are unaffected: their workers finish and call done().
   */
  shutdown(): void {
    this.#shuttingDown = true;
    for (const w of this.#waiting.values()) w.timer.cancel();
    this.#waiting.clear();
    this.#queue.length = 0;
    this.#dirty.clear();
    this.#metrics?.depth(0);
    for (const g of this.#getters.splice(0)) g(undefined);
  }

  #push(key: K): void {
    const getter = this.#getters.shift();
    if (getter) {
      this.#queue.push(key);
      getter(this.#take());
      return;
    }
    this.#queue.push(key);
    this.#metrics?.depth(this.#queue.length);
  }

  #take(): K | undefined {
    const key = this.#queue.shift();
    if (key === undefined) return undefined;
    this.#metrics?.depth(this.#queue.length);
    this.#dirty.delete(key);
    this.#processing.add(key);
    const now = this.#clock.now();
    const added = this.#addedAt.get(key);
    this.#addedAt.delete(key);
    if (added !== undefined) this.#metrics?.queueDuration((now - added) / 1000);
    this.#startedAt.set(key, now);
    return key;
  }
}
