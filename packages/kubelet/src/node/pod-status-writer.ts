// A pod's status writes (kubelet-and-oci §1): computed from the worker's container records by
// lifecycle/pod-status.ts, written only when something other than a transition time changed,
// one at a time in order, and never after the object is gone. The statuses of a start's first
// steps (accepted, sandbox ready) are asked with a delay: a write asked meanwhile computes the
// then-current status and covers them, so a fast start writes one status where it wrote three
// (each write also wakes every Pod watcher: the controllers, the scheduler, the CLI).
import { formatTime, type Pod } from '@agent-sandbox/kube-types';
import { errorMessage } from '../errors.ts';
import type { ContainerRecord } from '../lifecycle/container-record.ts';
import { computePodStatus } from '../lifecycle/pod-status.ts';
import type { PodNetworkStatus } from '../network/pod-network.ts';
import type { NodeContext } from './node-context.ts';

/**
 * How long a start's early statuses (accepted, sandbox ready) may wait to be folded into a later
 * one: a cold runc or bubblewrap start is Running well within it on a quiet machine, so its Pod
 * gets one status write; a slower start (a pull, gVisor's boot) still shows Pending soon.
 */
export const EARLY_STATUS_MS = 250;

/** What the writer reads from its worker at each write. */
export interface PodStatusSource {
  pod(): Pod;
  /** The pod's init container records and its app container records. */
  records(): { init: ContainerRecord[]; containers: ContainerRecord[] };
  network(): PodNetworkStatus | undefined;
  /** The object was force-deleted: nothing more is written. */
  gone(): boolean;
  /** The stored object a write returned. */
  written(pod: Pod): void;
}

export class PodStatusWriter {
  readonly #ctx: Pick<NodeContext, 'writeStatus' | 'log' | 'nodeIP'>;
  readonly #source: PodStatusSource;
  readonly #startTime: string;
  readonly #key: () => string;
  #published = '';
  #publishing: Promise<void> = Promise.resolve();
  #deferred: NodeJS.Timeout | undefined;

  constructor(
    ctx: Pick<NodeContext, 'writeStatus' | 'log' | 'nodeIP'>,
    source: PodStatusSource,
    startTime: string,
    key: () => string,
  ) {
    this.#ctx = ctx;
    this.#source = source;
    this.#startTime = startTime;
    this.#key = key;
  }

  /** Writes the computed status when it changed; resolves once this write (or its skip) is done. */
  publish(terminal = false): Promise<void> {
    clearTimeout(this.#deferred);
    this.#deferred = undefined;
    const run = this.#publishing.then(() => this.#write(terminal));
    this.#publishing = run.catch((e: unknown) =>
      this.#ctx.log.warn({ pod: this.#key(), err: errorMessage(e) }, 'status write failed'),
    );
    return this.#publishing;
  }

  /**
   * Asks for a write at most `ms` from now, unless one is asked before (publish): that write
   * carries everything this one would. A pending one stays as it is (the first deadline holds).
   */
  publishWithin(ms: number): void {
    if (this.#deferred) return;
    this.#deferred = setTimeout(() => void this.publish(), ms);
    this.#deferred.unref();
  }

  async #write(terminal: boolean): Promise<void> {
    const src = this.#source;
    if (src.gone()) return;
    const network = src.network();
    const status = computePodStatus({
      pod: src.pod(),
      ...src.records(),
      sandboxReady: network !== undefined,
      terminal,
      hostIP: this.#ctx.nodeIP,
      podIPs: network?.ips ?? [],
      startTime: this.#startTime,
      now: formatTime(Date.now()),
    });
    const key = JSON.stringify({
      ...status,
      conditions: status.conditions?.map((c) => ({ ...c, lastTransitionTime: undefined })),
    });
    if (key === this.#published) return;
    const written = await this.#ctx.writeStatus(src.pod(), status);
    if (written) {
      this.#published = key;
      src.written(written);
    }
  }
}
