// Wake-on-request (beyond upstream): a request for a Sandbox that is Suspended (or still coming
// up) resumes it — spec.operatingMode: Running, what `agent-sandbox resume` writes — and is
// served once the Sandbox reports Ready with a Pod IP, within a bounded wait; otherwise the
// caller gets a clear 503 (cannot resume) or 504 (not ready in time). Sandboxes are read from an
// informer, so a request for a running sandbox costs no API call.
import { SANDBOX_GROUP } from '@agent-sandbox/api';
import { Informer, type KubeClient, type ResourceRef } from '@agent-sandbox/kube';
import type { KubeObject } from '@agent-sandbox/kube-types';

const SANDBOXES: ResourceRef = {
  group: SANDBOX_GROUP,
  version: 'v1beta1',
  plural: 'sandboxes',
  kind: 'Sandbox',
  namespaced: true,
};

interface SandboxLike extends KubeObject {
  spec?: { operatingMode?: string };
  status?: { podIPs?: string[]; conditions?: { type: string; status: string }[] };
}

export type WakeResult =
  { ok: true; ip: string } | { ok: false; status: 503 | 504; detail: string };

/** Pure: the Pod IP a Ready, running Sandbox serves on, else undefined. */
export function servingIp(s: SandboxLike): string | undefined {
  if (s.spec?.operatingMode === 'Suspended') return undefined;
  const ready = s.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
  const ips = s.status?.podIPs ?? [];
  return ready ? (ips.find((ip) => !ip.includes(':')) ?? ips[0]) : undefined;
}

export interface SandboxWakerOptions {
  client: KubeClient;
  /** Longest wait for Ready after resuming. @default 60_000 */
  timeoutMs?: number;
  /** '' = all namespaces */
  namespace?: string;
}

/**
 * Contract: `informer` must run (and sync) before `wake()` is asked; `knows()` is a cache read;
 * `wake()` never throws and resumes a Sandbox at most once per concurrent burst of requests.
 */
export class SandboxWaker {
  readonly informer: Informer<SandboxLike>;
  readonly #client: KubeClient;
  readonly #timeoutMs: number;
  readonly #waiters = new Set<() => void>();

  constructor(o: SandboxWakerOptions) {
    this.#client = o.client;
    this.#timeoutMs = o.timeoutMs ?? 60_000;
    this.informer = new Informer<SandboxLike>({
      client: o.client,
      resource: SANDBOXES,
      ...(o.namespace ? { namespace: o.namespace } : {}),
    });
    const poke = () => this.#waiters.forEach((w) => w());
    this.informer.addHandlers({ onAdd: poke, onUpdate: poke, onDelete: poke });
  }

  /** The Sandbox exists and does not serve right now (suspended, or not Ready yet). */
  needsWake(namespace: string, name: string): boolean {
    const s = this.informer.cache.get(`${namespace}/${name}`);
    return s !== undefined && servingIp(s) === undefined;
  }

  async wake(namespace: string, name: string, signal: AbortSignal): Promise<WakeResult> {
    const s = this.informer.cache.get(`${namespace}/${name}`);
    if (s?.spec?.operatingMode === 'Suspended') {
      try {
        await this.#client.patch(SANDBOXES, namespace, name, {
          type: 'merge',
          body: { spec: { operatingMode: 'Running' } },
        });
      } catch (err: unknown) {
        return {
          ok: false,
          status: 503,
          detail: `Sandbox ${namespace}/${name} is suspended and could not be resumed: ${err instanceof Error ? err.message : String(err)}`,
        };
      }
    }
    const ip = await this.#until(namespace, name, signal);
    if (ip) return { ok: true, ip };
    return {
      ok: false,
      status: 504,
      detail: `Sandbox ${namespace}/${name} did not become ready within ${this.#timeoutMs / 1000}s`,
    };
  }

  #until(namespace: string, name: string, signal: AbortSignal): Promise<string | undefined> {
    return new Promise((resolve) => {
      const deadline = AbortSignal.any([signal, AbortSignal.timeout(this.#timeoutMs)]);
      const finish = (ip: string | undefined) => {
        this.#waiters.delete(check);
        deadline.removeEventListener('abort', onAbort);
        resolve(ip);
      };
      const check = () => {
        const s = this.informer.cache.get(`${namespace}/${name}`);
        const ip = s && servingIp(s);
        if (ip) finish(ip);
      };
      const onAbort = () => finish(undefined);
      this.#waiters.add(check);
      deadline.addEventListener('abort', onAbort, { once: true });
      check();
    });
  }
}
