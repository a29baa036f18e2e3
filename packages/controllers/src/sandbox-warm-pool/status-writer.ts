// The pool status write of a pass (spec §13.2 step 6): paced by status-pace.ts, compared against
// what the server holds as far as this process knows. A pass that starts before the pool cache
// shows this process's previous status write reads an older copy; compared against it the pass
// would send the same patch again, so the copies known to predate the write are compared against
// the write's answer instead (StatusWriteMemory, as the Sandbox controller does).
import { isNotFound, type Clock, type KubeClient } from '@agent-sandbox/kube';
import { SANDBOX_WARM_POOLS, type PoolObject } from '../extensions/resources.ts';
import { StatusWriteMemory } from '../sandbox/status-memory.ts';
import { paceStatus, statusPatchBody, type PoolStatus } from './status-pace.ts';

export interface PoolStatusWriterOptions {
  client: KubeClient;
  clock: Clock;
  fieldManager: string;
  /** Least time between two count-only status writes of one pool; 0 writes every change. */
  intervalMs: number;
}

export class PoolStatusWriter {
  readonly #o: PoolStatusWriterOptions;
  readonly #memory = new StatusWriteMemory<PoolStatus>();
  /** Last status write per pool key (`namespace/name`). */
  readonly #lastWriteMs = new Map<string, number>();

  constructor(options: PoolStatusWriterOptions) {
    this.#o = options;
  }

  /**
   * Writes `status` when it differs from the stored one and the pace allows; otherwise returns
   * how long to wait before a pass should look again (undefined: nothing is pending).
   */
  async write(
    key: string,
    pool: PoolObject,
    next: { status: PoolStatus; desired: number },
    signal: AbortSignal,
  ): Promise<number | undefined> {
    const nowMs = this.#o.clock.now();
    const step = paceStatus({
      stored: this.#memory.freshen(pool).status ?? {},
      next: next.status,
      desired: next.desired,
      lastWriteMs: this.#lastWriteMs.get(key),
      nowMs,
      intervalMs: this.#o.intervalMs,
    });
    if (step.kind === 'defer') return step.afterMs;
    if (step.kind === 'unchanged') return undefined;
    try {
      const answer = await this.#o.client.patch<PoolObject>(
        SANDBOX_WARM_POOLS,
        pool.metadata.namespace,
        pool.metadata.name ?? '',
        { type: 'merge', body: { status: statusPatchBody(step.status) } },
        { subresource: 'status', fieldManager: this.#o.fieldManager, signal },
      );
      this.#memory.written(
        pool.metadata.uid ?? '',
        {
          base: pool.metadata.resourceVersion,
          produced: [],
          answer: answer.metadata.resourceVersion,
        },
        answer.status ?? {},
      );
      this.#lastWriteMs.set(key, nowMs);
    } catch (err: unknown) {
      if (!isNotFound(err)) throw err;
    }
    return undefined;
  }

  /** The pool is gone (its memory entry, keyed by uid, ages out of the bounded memory). */
  forget(key: string): void {
    this.#lastWriteMs.delete(key);
  }
}
