// When this process first saw each claim (spec §12.1 timing predicate), keyed by namespace/name
// and UID so a deleted and recreated claim starts over. Feeds the controller-first-observed-at
// annotation and the warm-candidate grace; entries go on Ready, delete and NotFound.

export class FirstSeenTimes {
  readonly #seen = new Map<string, { uid: string; atMs: number }>();

  /** Records `atMs` unless this (key, uid) was seen before; a new UID replaces the entry. */
  observe(key: string, uid: string, atMs: number): void {
    const have = this.#seen.get(key);
    if (have === undefined || have.uid !== uid) this.#seen.set(key, { uid, atMs });
  }

  get(key: string, uid: string): number | undefined {
    const have = this.#seen.get(key);
    return have !== undefined && have.uid === uid ? have.atMs : undefined;
  }

  /** Drops the entry; with `uid`, only when it is still that UID's (compare-and-delete). */
  drop(key: string, uid?: string): void {
    if (uid === undefined || this.#seen.get(key)?.uid === uid) this.#seen.delete(key);
  }

  get size(): number {
    return this.#seen.size;
  }
}
