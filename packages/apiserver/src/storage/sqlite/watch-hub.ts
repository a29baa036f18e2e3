// Watch fan-out, driven by the log rather than by the writers (kine's model: one poll of the
// table feeds every watcher). After each commit the hub reads the new rows once and appends them
// to the buffer of every caught-up ("live") watcher. A watcher that is replaying history, or whose
// buffer overflowed, reads its missing revisions from the log itself, in batches, and becomes live
// again once it reaches the hub. So event order is always log order, rolled-back writes never
// produce events, and a slow consumer costs at most `maxBufferedEvents` events of memory.
import { StorageError } from '../errors.ts';
import type { WatchEvent, WatchHandle, WatchOptions } from '../store.ts';

/** What the hub needs from the log. */
export interface LogSource {
  /** Events with `after < revision <= upTo` (and key in [lo, hi) when given), in revision order. */
  readEvents(after: number, upTo: number, limit: number, lo?: string, hi?: string): WatchEvent[];
  currentRevision(): number;
  compactRevision(): number;
}

const READ_BATCH = 500;
/** Deliver this many events synchronously, then yield to the event loop. */
const YIELD_EVERY = 1000;

interface Watcher {
  prefix: string;
  lo: string;
  hi: string | undefined;
  /** Every event with revision ≤ position has been buffered or delivered. */
  position: number;
  buffer: WatchEvent[];
  live: boolean;
  running: boolean;
  closed: boolean;
  maxBuffered: number;
  onEvent: (e: WatchEvent) => void | Promise<void>;
  finish: (err: Error | undefined) => void;
}

export class WatchHub {
  /** Every row with id ≤ dispatched has been handed to the live watchers. */
  private dispatched: number;
  private readonly watchers = new Set<Watcher>();
  private flushScheduled = false;
  private closed = false;
  private poll: NodeJS.Timeout | undefined;

  constructor(
    private readonly log: LogSource,
    private readonly pollIntervalMs: number,
    /** What a poll does (other processes' writes); by default `notify()`. */
    private readonly onPoll?: () => void,
  ) {
    this.dispatched = log.currentRevision();
  }

  get size(): number {
    return this.watchers.size;
  }

  add(
    prefix: string,
    lo: string,
    hi: string | undefined,
    fromRevision: number,
    onEvent: (e: WatchEvent) => void | Promise<void>,
    options: WatchOptions = {},
  ): WatchHandle {
    const maxBuffered = options.maxBufferedEvents ?? 1000;
    if (!Number.isInteger(maxBuffered) || maxBuffered < 1) {
      throw new StorageError('InvalidArgument', 'watch: maxBufferedEvents must be an integer ≥ 1');
    }
    let resolveDone: (err: Error | undefined) => void = () => undefined;
    const done = new Promise<Error | undefined>((resolve) => (resolveDone = resolve));
    const w: Watcher = {
      prefix,
      lo,
      hi,
      position: fromRevision,
      buffer: [],
      live: false,
      running: false,
      closed: false,
      maxBuffered,
      onEvent,
      finish: (err) => {
        if (w.closed) return;
        w.closed = true;
        w.buffer = [];
        this.watchers.delete(w);
        if (this.watchers.size === 0) this.stopPolling();
        if (err !== undefined) options.onError?.(err);
        resolveDone(err);
      },
    };
    // With no watchers, commits are not dispatched (notify is a no-op), so `dispatched` may lag
    // behind the log: catch it up before this watcher measures its replay against it.
    if (this.watchers.size === 0) this.dispatched = this.log.currentRevision();
    this.watchers.add(w);
    this.startPolling();
    this.run(w);
    return { cancel: () => w.finish(undefined), done };
  }

  /** A write committed (or may have, in another process): fan out on the next microtask. */
  notify(): void {
    if (this.flushScheduled || this.watchers.size === 0) return;
    this.flushScheduled = true;
    queueMicrotask(() => {
      this.flushScheduled = false;
      try {
        this.flush();
      } catch (err: unknown) {
        // Never throw out of a microtask (it would crash the process): end the watches instead.
        this.closeAll(
          new StorageError('WatchClosed', 'watch: reading the log failed', { cause: err }),
        );
      }
    });
  }

  /** Reads every committed row past `dispatched` and hands it to the live watchers now. */
  flush(): void {
    if (this.closed) return;
    if (this.watchers.size === 0) {
      this.dispatched = this.log.currentRevision();
      return;
    }
    // Another process compacted past rows we never read: live watchers must re-read (and will
    // find out they were compacted), since their history has a hole.
    if (this.dispatched < this.log.compactRevision()) {
      for (const w of this.watchers) {
        w.live = false;
        this.run(w);
      }
    }
    for (;;) {
      const upTo = this.log.currentRevision();
      if (upTo <= this.dispatched) return;
      const events = this.log.readEvents(this.dispatched, upTo, READ_BATCH);
      const last = events.length < READ_BATCH ? upTo : (events.at(-1)?.revision ?? upTo);
      for (const w of this.watchers) {
        if (!w.live) continue;
        for (const e of events) {
          if (e.revision <= w.position || !e.key.startsWith(w.prefix)) continue;
          if (w.buffer.length >= w.maxBuffered) {
            // Overflow: stop buffering; the watcher re-reads from `position` once drained.
            w.live = false;
            break;
          }
          w.buffer.push(e);
          w.position = e.revision;
        }
        if (w.live) w.position = Math.max(w.position, last);
        this.run(w);
      }
      this.dispatched = last;
    }
  }

  /** Ends every watch with `err`. */
  closeAll(err: Error): void {
    this.closed = true;
    for (const w of [...this.watchers]) w.finish(err);
    this.stopPolling();
  }

  /**
   * Starts the delivery loop of `w` on a later microtask (never inside the caller's stack)
   * unless it is already running.
   */
  private run(w: Watcher): void {
    if (w.running || w.closed) return;
    w.running = true;
    queueMicrotask(() => void this.deliver(w));
  }

  private async deliver(w: Watcher): Promise<void> {
    let sinceYield = 0;
    while (!w.closed) {
      if (w.buffer.length === 0) {
        // `running` is cleared in the same turn as this check, so a flush that buffers an event
        // after it always sees `running === false` and restarts the loop.
        if (w.live || !this.refill(w)) {
          w.running = false;
          return;
        }
        continue;
      }
      const e = w.buffer.shift();
      if (e === undefined) continue;
      try {
        const result = w.onEvent(e);
        if (result !== undefined) await result;
      } catch (err: unknown) {
        w.finish(
          new StorageError(
            'WatchClosed',
            `watch: the event handler failed at revision ${e.revision}`,
            {
              cause: err,
            },
          ),
        );
        w.running = false;
        return;
      }
      if (++sinceYield >= YIELD_EVERY) {
        sinceYield = 0;
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    w.running = false;
  }

  /**
   * Reads the next batch of `w`'s missing events from the log. Returns false once `w` has caught
   * up with the hub (it is then live) or was closed.
   */
  private refill(w: Watcher): boolean {
    let compact: number;
    let events: WatchEvent[];
    try {
      compact = this.log.compactRevision();
      if (w.position < compact) {
        w.finish(
          new StorageError(
            'Compacted',
            `watch: revision ${w.position} has been compacted (compact revision ${compact}); relist and watch again`,
            { revisions: { requested: w.position, compact } },
          ),
        );
        return false;
      }
      events = this.log.readEvents(w.position, this.dispatched, READ_BATCH, w.lo, w.hi);
    } catch (err: unknown) {
      w.finish(err instanceof Error ? err : new Error(String(err)));
      return false;
    }
    w.buffer.push(...events);
    if (events.length < READ_BATCH) {
      w.position = Math.max(w.position, this.dispatched);
      w.live = true;
      return events.length > 0;
    }
    w.position = events.at(-1)?.revision ?? w.position;
    return true;
  }

  private startPolling(): void {
    if (this.pollIntervalMs <= 0 || this.poll !== undefined) return;
    this.poll = setInterval(() => (this.onPoll ?? (() => this.notify()))(), this.pollIntervalMs);
    this.poll.unref();
  }

  private stopPolling(): void {
    if (this.poll !== undefined) clearInterval(this.poll);
    this.poll = undefined;
  }
}
