// A key-deduplicating work queue for the in-server controllers (STYLE.md house style 1: a
// reconciler gets a key, reads the current state and converges). Modelled on client-go's
// workqueue: a key waiting in the queue is held once however often it is added, a key added while
// it is being processed runs again afterwards, failures come back after a per-key exponential
// backoff, and work is drained in bounded batches so the server's event loop stays responsive.
// Why not @agent-sandbox/runtime's WorkQueue (same key rules, asynchronous workers): ADR 0024.

export interface WorkQueueOptions {
  /**
   * Converges one key. Runs synchronously, one key at a time. Throwing requeues the key after a
   * backoff that doubles per consecutive failure; returning normally resets the backoff.
   */
  reconcile: (key: string) => void;
  /** Told about every failure before the key is retried. @default ignore */
  onError?: (key: string, err: unknown) => void;
  /** First retry delay after a failure. @default 5 */
  baseDelayMs?: number;
  /** Longest retry delay. @default 30_000 */
  maxDelayMs?: number;
  /** Keys processed per event-loop turn before yielding to I/O. @default 100 */
  batchSize?: number;
}

type Defaulted = Required<WorkQueueOptions>;

function withDefaults(options: WorkQueueOptions): Defaulted {
  return {
    reconcile: options.reconcile,
    onError: options.onError ?? (() => {}),
    baseDelayMs: options.baseDelayMs ?? 5,
    maxDelayMs: options.maxDelayMs ?? 30_000,
    batchSize: options.batchSize ?? 100,
  };
}

export class WorkQueue {
  readonly #options: Defaulted;
  /** Keys waiting, in insertion order (a Set keeps order and deduplicates). */
  readonly #pending = new Set<string>();
  readonly #failures = new Map<string, number>();
  readonly #retryTimers = new Map<string, NodeJS.Timeout>();
  #immediate: NodeJS.Immediate | undefined;
  #stopped = false;
  #idleWaiters: (() => void)[] = [];

  constructor(options: WorkQueueOptions) {
    this.#options = withDefaults(options);
  }

  /** Queues `key` unless it is already waiting. Ignored after `stop()`. */
  add(key: string): void {
    if (this.#stopped || this.#pending.has(key)) return;
    // A key due for a retry that is added again runs now; the retry is no longer needed.
    const timer = this.#retryTimers.get(key);
    if (timer) {
      clearTimeout(timer);
      this.#retryTimers.delete(key);
    }
    this.#pending.add(key);
    this.#schedule();
  }

  /** Keys waiting to be processed (not counting keys waiting for a retry). */
  get length(): number {
    return this.#pending.size;
  }

  /** Drops every queued key and timer; nothing runs afterwards and nothing keeps the process alive. */
  stop(): void {
    this.#stopped = true;
    this.#pending.clear();
    if (this.#immediate) clearImmediate(this.#immediate);
    this.#immediate = undefined;
    for (const t of this.#retryTimers.values()) clearTimeout(t);
    this.#retryTimers.clear();
    this.#wakeIdle();
  }

  /** Resolves once no key is waiting (keys waiting for a retry do not count). */
  idle(): Promise<void> {
    if (this.#pending.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  #schedule(): void {
    if (this.#immediate || this.#stopped) return;
    this.#immediate = setImmediate(() => this.#drain());
  }

  #drain(): void {
    this.#immediate = undefined;
    for (let i = 0; i < this.#options.batchSize && !this.#stopped; i++) {
      const next = this.#pending.values().next();
      if (next.done) break;
      const key = next.value;
      this.#pending.delete(key);
      this.#process(key);
    }
    if (this.#pending.size > 0) this.#schedule();
    else this.#wakeIdle();
  }

  #process(key: string): void {
    try {
      this.#options.reconcile(key);
      this.#failures.delete(key);
    } catch (err: unknown) {
      const failures = (this.#failures.get(key) ?? 0) + 1;
      this.#failures.set(key, failures);
      this.#options.onError(key, err);
      this.#retryLater(key, failures);
    }
  }

  #retryLater(key: string, failures: number): void {
    if (this.#stopped || this.#retryTimers.has(key)) return;
    const delay = Math.min(
      this.#options.maxDelayMs,
      this.#options.baseDelayMs * 2 ** Math.min(failures - 1, 30),
    );
    const timer = setTimeout(() => {
      this.#retryTimers.delete(key);
      this.add(key);
    }, delay);
    // A pending retry must not keep a process alive that has nothing else to do.
    timer.unref();
    this.#retryTimers.set(key, timer);
  }

  #wakeIdle(): void {
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    waiters.forEach((w) => w());
  }
}
