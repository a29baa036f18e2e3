// Informer: list, then watch from the list's resourceVersion, keeping a Cache and calling
// handlers (client-go's reflector + shared informer, in one small class). Tolerates watch drops
// (re-watch from the last resourceVersion), 410 Expired / Gone (relist, semantics §4.3) and
// API server restarts (reconnect with exponential backoff). Bookmarks only advance the
// resourceVersion. An in-stream ERROR ends the stream read at once, so it never hangs.
import type { KubeObject } from '@agent-sandbox/kube-types';
import { Cache, type CacheReader, type IndexFunc } from './cache.ts';
import type { KubeClient } from './client.ts';
import { realClock, sleep, type Clock } from './clock.ts';
import { InvalidArgumentError, isGone } from './errors.ts';
import { objectKey, type ResourceRef } from './resources.ts';

export interface InformerHandlers<T extends KubeObject> {
  onAdd?(obj: T): void;
  onUpdate?(oldObj: T, newObj: T): void;
  /** `obj` is the last known state (after a relist: the cached one). */
  onDelete?(obj: T): void;
}

export interface InformerLogger {
  debug(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface InformerOptions {
  client: KubeClient;
  resource: ResourceRef;
  /** Restrict to one namespace; @default all namespaces */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Server-side watch lifetime; each re-watch picks a random value in [min, 2·min). @default 300 */
  watchTimeoutSeconds?: number;
  /** First reconnect delay after a failure; doubles up to `maxBackoffMs`. @default 800 */
  initialBackoffMs?: number;
  /** @default 30_000 */
  maxBackoffMs?: number;
  clock?: Clock;
  logger?: InformerLogger;
  /** @default Math.random */
  random?: () => number;
  /**
   * Applied to every listed or watched object before it is cached and handed to handlers
   * (controller-runtime's cache transform): lets a controller keep only the fields it reads.
   */
  transform?: (obj: KubeObject) => KubeObject;
}

const noopLogger: InformerLogger = { debug: () => undefined, warn: () => undefined };

export class Informer<T extends KubeObject> {
  readonly resource: ResourceRef;
  readonly #o: Required<
    Omit<InformerOptions, 'namespace' | 'labelSelector' | 'fieldSelector' | 'transform'>
  > &
    Pick<InformerOptions, 'namespace' | 'labelSelector' | 'fieldSelector' | 'transform'>;
  readonly #cache = new Cache<T>();
  readonly #handlers: InformerHandlers<T>[] = [];
  #resourceVersion = '';
  #synced = false;
  #syncWaiters: (() => void)[] = [];
  #running: Promise<void> | undefined;
  #relists = 0;

  constructor(options: InformerOptions) {
    if (!options.client) throw new InvalidArgumentError('informer needs a client');
    this.resource = options.resource;
    this.#o = {
      watchTimeoutSeconds: 300,
      initialBackoffMs: 800,
      maxBackoffMs: 30_000,
      clock: realClock,
      logger: noopLogger,
      random: Math.random,
      ...options,
    };
  }

  get cache(): CacheReader<T> {
    return this.#cache;
  }

  /** The resourceVersion the cache reflects. */
  get resourceVersion(): string {
    return this.#resourceVersion;
  }

  /** How many full lists ran (1 after the first sync; more after 410s). */
  get relists(): number {
    return this.#relists;
  }

  hasSynced(): boolean {
    return this.#synced;
  }

  /** Adds an index (allowed before or after start). */
  addIndex(name: string, fn: IndexFunc<T>): void {
    this.#cache.addIndex(name, fn);
  }

  /** Handlers added after sync first get onAdd for every cached object. */
  addHandlers(handlers: InformerHandlers<T>): void {
    this.#handlers.push(handlers);
    if (this.#synced) for (const obj of this.#cache.list()) handlers.onAdd?.(obj);
  }

  /** Runs until `signal` aborts; resolves then. Never rejects. Calling it twice returns the same run. */
  run(signal: AbortSignal): Promise<void> {
    this.#running ??= this.#loop(signal);
    return this.#running;
  }

  /** Resolves once the first list is in the cache, or rejects with the signal's reason. */
  waitForSync(signal?: AbortSignal): Promise<void> {
    if (this.#synced) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const onAbort = (): void => reject(signal?.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#syncWaiters.push(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
    });
  }

  async #loop(signal: AbortSignal): Promise<void> {
    const log = this.#o.logger;
    let backoff = this.#o.initialBackoffMs;
    let needList = true;
    while (!signal.aborted) {
      try {
        if (needList) {
          await this.#list();
          needList = false;
        }
        const started = this.#o.clock.now();
        const gotEvents = await this.#watch(signal);
        if (gotEvents) backoff = this.#o.initialBackoffMs;
        // A clean end re-watches from the last resourceVersion at once, unless the stream was
        // empty and very short (client-go's "very short watch"): then back off, never spin.
        if (gotEvents || this.#o.clock.now() - started >= 1_000) continue;
        log.debug({ resource: this.resource.plural }, 'very short watch, backing off');
      } catch (err: unknown) {
        if (signal.aborted) break;
        if (isGone(err)) {
          log.debug({ resource: this.resource.plural, err }, 'watch expired, relisting');
          needList = true;
          continue;
        }
        log.warn({ resource: this.resource.plural, err, backoffMs: backoff }, 'list/watch failed');
      }
      try {
        await sleep(this.#o.clock, backoff * (1 + this.#o.random() * 0.2), signal);
      } catch {
        break; // aborted while waiting
      }
      backoff = Math.min(backoff * 2, this.#o.maxBackoffMs);
    }
  }

  async #list(): Promise<void> {
    const { client, resource, namespace, labelSelector, fieldSelector } = this.#o;
    const items: T[] = [];
    let continueToken: string | undefined;
    let rv: string;
    do {
      const page = await client.list<T>(resource, namespace, {
        limit: 500,
        ...(continueToken ? { continue: continueToken } : {}),
        ...(labelSelector ? { labelSelector } : {}),
        ...(fieldSelector ? { fieldSelector } : {}),
      });
      items.push(...page.items);
      rv = page.metadata.resourceVersion ?? '';
      continueToken = page.metadata.continue || undefined;
    } while (continueToken);
    this.#replace(items);
    this.#resourceVersion = rv;
    this.#relists++;
    if (!this.#synced) {
      this.#synced = true;
      for (const w of this.#syncWaiters.splice(0)) w();
    }
  }

  /** Replaces the cache with a fresh list, emitting the difference as add/update/delete. */
  #replace(items: T[]): void {
    const seen = new Set<string>();
    for (const obj of items) {
      seen.add(objectKey(obj));
      this.#apply('MODIFIED', obj);
    }
    for (const key of this.#cache.keys()) {
      if (seen.has(key)) continue;
      const old = this.#cache.delete(key);
      if (old) this.#emit((h) => h.onDelete?.(old));
    }
  }

  /** Returns whether any event arrived (used to reset backoff). */
  async #watch(signal: AbortSignal): Promise<boolean> {
    const { client, resource, namespace, labelSelector, fieldSelector } = this.#o;
    const min = this.#o.watchTimeoutSeconds;
    const timeoutSeconds = Math.floor(min * (1 + this.#o.random()));
    let any = false;
    const events = client.watch<T>(resource, namespace, {
      resourceVersion: this.#resourceVersion,
      allowWatchBookmarks: true,
      timeoutSeconds,
      signal,
      ...(labelSelector ? { labelSelector } : {}),
      ...(fieldSelector ? { fieldSelector } : {}),
    });
    for await (const ev of events) {
      any = true;
      if (ev.type !== 'BOOKMARK') this.#apply(ev.type, ev.object);
      const rv = ev.object.metadata?.resourceVersion;
      if (rv) this.#resourceVersion = rv;
    }
    return any;
  }

  #apply(type: 'ADDED' | 'MODIFIED' | 'DELETED', received: T): void {
    const obj = this.#o.transform ? (this.#o.transform(received) as T) : received;
    if (type === 'DELETED') {
      const old = this.#cache.delete(objectKey(obj));
      this.#emit((h) => h.onDelete?.(obj ?? old));
      return;
    }
    const old = this.#cache.set(obj);
    if (!old) this.#emit((h) => h.onAdd?.(obj));
    else if (old.metadata.resourceVersion !== obj.metadata.resourceVersion)
      this.#emit((h) => h.onUpdate?.(old, obj));
  }

  #emit(fn: (h: InformerHandlers<T>) => void): void {
    for (const h of this.#handlers) {
      try {
        fn(h);
      } catch (err: unknown) {
        // A handler bug must not stop the informer (STYLE error rule 8).
        this.#o.logger.warn({ resource: this.resource.plural, err }, 'informer handler threw');
      }
    }
  }
}
