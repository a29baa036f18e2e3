// The informer's store: objects by `namespace/name` plus named indexes (client-go's Indexer).
// Reads return the cached objects themselves: treat them as read-only, and expect them to lag
// the server (they are as fresh as the last watch event).
import type { KubeObject } from '@agent-sandbox/kube-types';
import { InvalidArgumentError } from './errors.ts';
import { objectKey } from './resources.ts';

export type IndexFunc<T> = (obj: T) => string[];

/** Read access to an informer's cache. */
export interface CacheReader<T extends KubeObject> {
  get(key: string): T | undefined;
  list(): T[];
  keys(): string[];
  /** Objects whose index `name` produced `value`. Throws InvalidArgumentError for an unknown index. */
  byIndex(name: string, value: string): T[];
}

export class Cache<T extends KubeObject> implements CacheReader<T> {
  readonly #items = new Map<string, T>();
  readonly #indexers = new Map<string, IndexFunc<T>>();
  /** index name → value → keys */
  readonly #indexes = new Map<string, Map<string, Set<string>>>();

  /** Adds an index; existing objects are indexed at once. */
  addIndex(name: string, fn: IndexFunc<T>): void {
    if (this.#indexers.has(name)) throw new InvalidArgumentError(`index ${name} already exists`);
    this.#indexers.set(name, fn);
    this.#indexes.set(name, new Map());
    for (const [key, obj] of this.#items) this.#indexOne(name, fn, key, obj);
  }

  get(key: string): T | undefined {
    return this.#items.get(key);
  }

  list(): T[] {
    return [...this.#items.values()];
  }

  keys(): string[] {
    return [...this.#items.keys()];
  }

  byIndex(name: string, value: string): T[] {
    const index = this.#indexes.get(name);
    if (!index) throw new InvalidArgumentError(`no index named ${name}; call addIndex first`);
    const out: T[] = [];
    for (const key of index.get(value) ?? []) {
      const obj = this.#items.get(key);
      if (obj) out.push(obj);
    }
    return out;
  }

  /** Stores `obj`; returns the previous version, if any. */
  set(obj: T): T | undefined {
    const key = objectKey(obj);
    const old = this.#items.get(key);
    if (old) this.#unindex(key, old);
    this.#items.set(key, obj);
    for (const [name, fn] of this.#indexers) this.#indexOne(name, fn, key, obj);
    return old;
  }

  delete(key: string): T | undefined {
    const old = this.#items.get(key);
    if (!old) return undefined;
    this.#unindex(key, old);
    this.#items.delete(key);
    return old;
  }

  #indexOne(name: string, fn: IndexFunc<T>, key: string, obj: T): void {
    const index = this.#indexes.get(name);
    if (!index) return;
    for (const value of fn(obj)) {
      let keys = index.get(value);
      if (!keys) index.set(value, (keys = new Set()));
      keys.add(key);
    }
  }

  #unindex(key: string, obj: T): void {
    for (const [name, fn] of this.#indexers) {
      const index = this.#indexes.get(name);
      for (const value of fn(obj)) {
        const keys = index?.get(value);
        keys?.delete(key);
        if (keys?.size === 0) index?.delete(value);
      }
    }
  }
}
