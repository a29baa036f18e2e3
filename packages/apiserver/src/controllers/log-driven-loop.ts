// The loop every in-server controller runs: follow the revision log (list, then watch), let the
// controller turn events into keys, and reconcile those keys one at a time through a WorkQueue.
// Controllers keep their own state and logic; this owns only start/stop/idle and the plumbing.
import type { Store, WatchEvent } from '../storage/store.ts';
import { unexpectedErrors, type ControllerOptions } from './controller-options.ts';
import { LogFollower, type LogFollowerOptions } from './log-follower.ts';
import { WorkQueue } from './work-queue.ts';

export interface LogDrivenController {
  /** The controller's name in error reports. */
  name: string;
  /** Maps one log event to keys via `enqueue`. */
  observe(e: WatchEvent): void;
  reconcile(key: string): void;
  /** Drops derived state before the follower lists again. */
  reset?(): void;
  onError: NonNullable<ControllerOptions['onError']>;
  follow?: LogFollowerOptions;
}

export class LogDrivenLoop {
  readonly #store: Store;
  readonly #controller: LogDrivenController;
  #queue: WorkQueue | undefined;
  #follower: LogFollower | undefined;

  constructor(store: Store, controller: LogDrivenController) {
    this.#store = store;
    this.#controller = controller;
  }

  /** Lists (observing every stored object), then follows the log. Idempotent. */
  start(): void {
    if (this.#follower) return;
    const c = this.#controller;
    this.#queue = new WorkQueue({
      reconcile: (key) => c.reconcile(key),
      onError: unexpectedErrors(c.name, c.onError),
    });
    this.#follower = new LogFollower(
      this.#store,
      {
        reset: () => c.reset?.(),
        observe: (e) => c.observe(e),
        onError: (err) => c.onError(c.name, '/registry/', err),
      },
      c.follow,
    );
    this.#follower.start();
  }

  /** Stops following the log and drops queued work; no timer survives it. */
  stop(): void {
    this.#follower?.stop();
    this.#follower = undefined;
    this.#queue?.stop();
    this.#queue = undefined;
  }

  /** Resolves when no key is queued (for tests and orderly shutdown). */
  idle(): Promise<void> {
    return this.#queue?.idle() ?? Promise.resolve();
  }

  /** Queues `key` for reconcile; ignored while stopped. */
  enqueue(key: string): void {
    this.#queue?.add(key);
  }
}
