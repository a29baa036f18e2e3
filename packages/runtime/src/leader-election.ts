// Leader election on a coordination.k8s.io/v1 Lease, client-go's algorithm
// (tools/leaderelection): a candidate takes the Lease when it is free or its holder has not
// renewed for leaseDuration *as observed on the candidate's own clock* (no clock-skew trust),
// the leader renews every retryPeriod and gives up if it cannot renew within renewDeadline,
// and every write is an update guarded by resourceVersion (optimistic concurrency).
import type { Lease } from '@agent-sandbox/kube-types';
import {
  formatMicroTime,
  isAlreadyExists,
  isConflict,
  isNotFound,
  LEASES,
  realClock,
  sleep,
  type Clock,
  type KubeClient,
} from '@agent-sandbox/kube';
import { pino, type Logger } from 'pino';
import { invalidArgument } from './errors.ts';

export interface LeaderElectorOptions {
  client: KubeClient;
  /** Lease namespace and name (upstream's id: `a3317529.agent-sandbox.x-k8s.io`). */
  namespace: string;
  name: string;
  /** Unique per candidate: hostname plus a random suffix. */
  identity: string;
  /** @default 15_000 */
  leaseDurationMs?: number;
  /** @default 10_000 */
  renewDeadlineMs?: number;
  /** @default 2_000 */
  retryPeriodMs?: number;
  /** Clear the holder when `run`'s signal aborts, so another candidate takes over at once. @default true */
  releaseOnCancel?: boolean;
  /**
   * Called when this candidate becomes leader; `signal` aborts when leadership ends. A returned
   * promise is awaited after that abort and before the Lease is released, so work stops before
   * another candidate can take over.
   */
  onStartedLeading(signal: AbortSignal): void | Promise<void>;
  /** Called once leadership ends (lost, or released on shutdown). */
  onStoppedLeading?(): void;
  /** Called when the observed holder changes (including to this candidate). */
  onNewLeader?(identity: string): void;
  clock?: Clock;
  logger?: Logger;
  /** @default Math.random (jitter of retries) */
  random?: () => number;
}

type Spec = NonNullable<Lease['spec']>;
type LeaseObject = Lease & { metadata: NonNullable<Lease['metadata']> };

export class LeaderElector {
  readonly #o: Required<Omit<LeaderElectorOptions, 'onStoppedLeading' | 'onNewLeader'>> &
    Pick<LeaderElectorOptions, 'onStoppedLeading' | 'onNewLeader'>;
  #observed: { spec: Spec; rv: string; atMs: number } | undefined;
  #leading = false;

  constructor(options: LeaderElectorOptions) {
    const o = {
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      releaseOnCancel: true,
      clock: realClock,
      logger: pino({ level: 'silent' }),
      random: Math.random,
      ...options,
    };
    // client-go's checks (NewLeaderElector): JitterFactor 1.2.
    if (!(o.leaseDurationMs > o.renewDeadlineMs))
      throw invalidArgument('leaseDurationMs must be greater than renewDeadlineMs');
    if (!(o.renewDeadlineMs > 1.2 * o.retryPeriodMs))
      throw invalidArgument('renewDeadlineMs must be greater than 1.2 × retryPeriodMs');
    if (!o.identity) throw invalidArgument('identity must not be empty');
    if (!o.name || !o.namespace) throw invalidArgument('lease namespace and name are required');
    this.#o = o;
  }

  get isLeader(): boolean {
    return this.#leading;
  }

  /** The holder last seen on the Lease ('' when free). */
  get observedLeader(): string {
    return this.#observed?.spec.holderIdentity ?? '';
  }

  /**
   * Campaigns until `signal` aborts; while leading, renews. Resolves when leadership ends
   * (lost or released) or the signal aborts before winning. Never rejects.
   */
  async run(signal: AbortSignal): Promise<void> {
    const { logger, retryPeriodMs } = this.#o;
    // acquire
    for (;;) {
      if (signal.aborted) return;
      if (await this.#attempt(this.#o.renewDeadlineMs)) break;
      if (!(await this.#wait(retryPeriodMs * (1 + this.#o.random() * 1.2), signal))) return;
    }
    logger.info({ lease: this.#leaseName() }, 'acquired lease');
    this.#leading = true;
    const leadership = new AbortController();
    const work = Promise.resolve(this.#o.onStartedLeading(leadership.signal)).catch(
      (err: unknown) => logger.error({ err }, 'onStartedLeading failed'),
    );
    // renew
    let lastRenew = this.#o.clock.now();
    for (;;) {
      if (!(await this.#wait(retryPeriodMs, signal))) break;
      // Each renewal must finish before the renew deadline (client-go's renew context).
      const left = lastRenew + this.#o.renewDeadlineMs - this.#o.clock.now();
      if (left > 0 && (await this.#attempt(left))) {
        lastRenew = this.#o.clock.now();
        continue;
      }
      if (this.#o.clock.now() - lastRenew >= this.#o.renewDeadlineMs) {
        logger.error(
          { lease: this.#leaseName() },
          'failed to renew lease within the renew deadline',
        );
        break;
      }
    }
    this.#leading = false;
    leadership.abort();
    await work;
    if (signal.aborted && this.#o.releaseOnCancel) await this.#release();
    this.#o.onStoppedLeading?.();
  }

  #leaseName(): string {
    return `${this.#o.namespace}/${this.#o.name}`;
  }

  async #wait(ms: number, signal: AbortSignal): Promise<boolean> {
    try {
      await sleep(this.#o.clock, ms, signal);
      return true;
    } catch {
      return false; // aborted
    }
  }

  /** One tryAcquireOrRenew whose requests are aborted after `timeoutMs` (on the injected clock). */
  async #attempt(timeoutMs: number): Promise<boolean> {
    const ac = new AbortController();
    const timer = this.#o.clock.setTimer(() => ac.abort(), timeoutMs);
    try {
      return await this.#tryAcquireOrRenew(ac.signal);
    } finally {
      timer.cancel();
    }
  }

  async #tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    const { client, namespace, name, identity, clock, logger } = this.#o;
    const now = clock.now();
    const fresh: Spec = {
      holderIdentity: identity,
      leaseDurationSeconds: Math.ceil(this.#o.leaseDurationMs / 1000),
      acquireTime: formatMicroTime(now),
      renewTime: formatMicroTime(now),
      leaseTransitions: 0,
    };
    let lease: LeaseObject;
    try {
      lease = await client.get<LeaseObject>(LEASES, namespace, name, { signal });
    } catch (err: unknown) {
      if (!isNotFound(err)) {
        logger.warn({ err }, 'error retrieving lease');
        return false;
      }
      try {
        const created = await client.create<LeaseObject>(
          LEASES,
          {
            apiVersion: 'coordination.k8s.io/v1',
            kind: 'Lease',
            metadata: { name, namespace },
            spec: fresh,
          },
          { signal },
        );
        this.#observe(created, clock.now());
        return true;
      } catch (createErr: unknown) {
        if (!isAlreadyExists(createErr)) logger.warn({ err: createErr }, 'error creating lease');
        return false;
      }
    }
    const spec = lease.spec ?? {};
    if (
      !this.#observed ||
      this.#observed.spec.holderIdentity !== spec.holderIdentity ||
      this.#observed.spec.renewTime !== spec.renewTime
    )
      this.#observe(lease, now);
    const holder = spec.holderIdentity ?? '';
    const durationMs = (spec.leaseDurationSeconds ?? 0) * 1000;
    const observedAt = this.#observed?.atMs ?? now;
    if (holder !== '' && holder !== identity && observedAt + durationMs > now) return false;
    const next: Spec =
      holder === identity
        ? {
            ...fresh,
            acquireTime: spec.acquireTime ?? fresh.acquireTime,
            leaseTransitions: spec.leaseTransitions ?? 0,
          }
        : { ...fresh, leaseTransitions: (spec.leaseTransitions ?? 0) + 1 };
    try {
      const updated = await client.update<LeaseObject>(
        LEASES,
        { ...lease, spec: next },
        { signal },
      );
      this.#observe(updated, clock.now());
      return true;
    } catch (err: unknown) {
      if (!isConflict(err)) logger.warn({ err }, 'error updating lease');
      return false;
    }
  }

  #observe(lease: LeaseObject, atMs: number): void {
    const spec = lease.spec ?? {};
    const previous = this.#observed?.spec.holderIdentity;
    this.#observed = { spec, rv: lease.metadata.resourceVersion ?? '', atMs };
    if (spec.holderIdentity && spec.holderIdentity !== previous)
      this.#o.onNewLeader?.(spec.holderIdentity);
  }

  /** Clears the holder (client-go `release`), guarded by the last observed resourceVersion. */
  async #release(): Promise<void> {
    const { client, namespace, name, identity, clock, logger } = this.#o;
    const observed = this.#observed;
    if (!observed || observed.spec.holderIdentity !== identity) return;
    const now = formatMicroTime(clock.now());
    try {
      await client.update<LeaseObject>(LEASES, {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name, namespace, resourceVersion: observed.rv },
        spec: {
          holderIdentity: '',
          leaseDurationSeconds: 1,
          acquireTime: now,
          renewTime: now,
          leaseTransitions: observed.spec.leaseTransitions ?? 0,
        },
      });
      logger.info({ lease: this.#leaseName() }, 'released lease');
    } catch (err: unknown) {
      logger.warn({ err }, 'failed to release lease');
    }
  }
}
