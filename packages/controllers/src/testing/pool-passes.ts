// Single SandboxWarmPool passes driven by a test, for upstream's reconcilePool cases that need a
// cache state a running controller only reaches by chance: real informers on the target that the
// test stops (the cache then lags every later write, as a slow watch does), the real reconciler,
// the real expectations and the controller's own event handlers. Nothing is faked: the cache
// holds what the API server answered, only later than the server moved on.
import {
  Informer,
  KubeClient,
  PODS,
  type ClientMetrics,
  type ResourceRef,
} from '@agent-sandbox/kube';
import type { KubeObject } from '@agent-sandbox/kube-types';
import type { InformerSource, Result } from '@agent-sandbox/runtime';
import { trace } from '@opentelemetry/api';
import { pino } from 'pino';
import { Labels, nameHash } from '@agent-sandbox/api';
import { SANDBOX_TEMPLATES, SANDBOX_WARM_POOLS, type SandboxObj } from '../extensions/resources.ts';
import { SANDBOXES } from '../sandbox/child-writes.ts';
import { WarmPoolExpectations } from '../sandbox-warm-pool/expectations.ts';
import { observeMemberEvents } from '../sandbox-warm-pool/sandbox-warm-pool-controller.ts';
import {
  SandboxWarmPoolReconciler,
  type SandboxWarmPoolReconcilerOptions,
} from '../sandbox-warm-pool/sandbox-warm-pool-reconciler.ts';
import { eventually } from './harness.ts';
import type { ScenarioWorld } from './scenario-world.ts';

const KINDS: readonly ResourceRef[] = [SANDBOX_WARM_POOLS, SANDBOX_TEMPLATES, SANDBOXES, PODS];
const keyOf = (r: ResourceRef): string => `${r.group}/${r.plural}`;

/** The four informers a pool pass reads, on one namespace; `freeze()` stops their watches. */
export class StoppableInformers implements InformerSource {
  readonly #informers = new Map<string, Informer<KubeObject>>();
  readonly #stop = new AbortController();

  constructor(client: KubeClient, namespace: string) {
    for (const resource of KINDS) {
      const informer = new Informer<KubeObject>({ client, resource, namespace });
      void informer.run(this.#stop.signal);
      this.#informers.set(keyOf(resource), informer);
    }
  }

  getInformer<T extends KubeObject>(resource: ResourceRef): Informer<T> {
    const informer = this.#informers.get(keyOf(resource));
    if (informer === undefined) throw new Error(`no test informer for ${keyOf(resource)}`);
    return informer as unknown as Informer<T>;
  }

  synced(): Promise<void> {
    return Promise.all([...this.#informers.values()].map((i) => i.waitForSync())).then(
      () => undefined,
    );
  }

  /** Stops every watch: from now on the caches keep what they hold. */
  freeze(): void {
    this.#stop.abort();
  }
}

/**
 * The reconciler settings a test may choose (the flags, the clock, the jitter source, the status
 * pace: 0 unless given, as no queue brings a deferred status write back to these passes).
 */
export type PoolPassSettings = Pick<
  SandboxWarmPoolReconcilerOptions,
  'readinessGraceMs' | 'unschedulableRecheckMs' | 'clock' | 'random' | 'statusIntervalMs'
>;

/** A pool reconciler of its own over StoppableInformers, passes run on demand. */
export class PoolPasses {
  readonly informers: StoppableInformers;
  readonly expectations: WarmPoolExpectations;
  readonly #reconciler: SandboxWarmPoolReconciler;
  readonly #ns: string;

  private constructor(
    informers: StoppableInformers,
    client: KubeClient,
    ns: string,
    expectations: WarmPoolExpectations,
    settings: PoolPassSettings,
  ) {
    this.informers = informers;
    this.expectations = expectations;
    this.#ns = ns;
    observeMemberEvents(informers, expectations);
    this.#reconciler = new SandboxWarmPoolReconciler({
      client,
      informers,
      expectations,
      statusIntervalMs: 0,
      ...settings,
    });
  }

  /**
   * Synced informers on the world's namespace (listed with the admin client) and a reconciler
   * writing through `client`; pass `expectations` to carry a previous instance's over.
   */
  static async open(
    world: Pick<ScenarioWorld, 'client' | 'ns'>,
    options: {
      client?: KubeClient;
      expectations?: WarmPoolExpectations;
      settings?: PoolPassSettings;
    } = {},
  ): Promise<PoolPasses> {
    const informers = new StoppableInformers(world.client, world.ns);
    await informers.synced();
    return new PoolPasses(
      informers,
      options.client ?? world.client,
      world.ns,
      options.expectations ?? new WarmPoolExpectations(),
      options.settings ?? {},
    );
  }

  /** One pass; `signal` is the manager's (aborted on shutdown or lost leadership). */
  async pass(
    pool: string,
    signal: AbortSignal = new AbortController().signal,
  ): Promise<Result | undefined> {
    const result = await this.#reconciler.reconcile(
      { namespace: this.#ns, name: pool },
      {
        signal,
        logger: pino({ level: 'silent' }),
        tracer: trace.getTracer('pool-passes'),
      },
    );
    return result ?? undefined;
  }

  key(pool: string): string {
    return `${this.#ns}/${pool}`;
  }

  /** The members of `pool` (membership label) as this instance's Sandbox cache holds them. */
  cachedMembers(pool: string): SandboxObj[] {
    return this.informers
      .getInformer<SandboxObj>(SANDBOXES)
      .cache.list()
      .filter((s) => s.metadata.labels?.[Labels.WarmPoolSandbox] === nameHash(pool));
  }

  /** Waits until the cache holds exactly `n` members of `pool`; returns them. */
  cacheHas(pool: string, n: number): Promise<SandboxObj[]> {
    return eventually(() => {
      const m = this.cachedMembers(pool);
      return m.length === n ? m : undefined;
    }, 60_000);
  }

  close(): void {
    this.informers.freeze();
  }
}

/** Client metrics that count requests by `<method> <code>`. */
function countedRequests(): { requests: Map<string, number>; metrics: ClientMetrics } {
  const requests = new Map<string, number>();
  const metrics: ClientMetrics = {
    rateLimiterWait: () => undefined,
    request: (method, _host, code) => {
      const k = `${method} ${code}`;
      requests.set(k, (requests.get(k) ?? 0) + 1);
    },
  };
  return { requests, metrics };
}

/** The world's admin credentials on a client of its own; `requests` counts what it sent. */
export function countingClient(world: Pick<ScenarioWorld, 'client'>): {
  client: KubeClient;
  requests: Map<string, number>;
} {
  const { requests, metrics } = countedRequests();
  return { client: new KubeClient({ config: world.client.config, metrics }), requests };
}

/**
 * A client authenticated as a fresh ServiceAccount of `world.ns` bound to no role: every write
 * it makes is denied by the target's RBAC authorizer (403), as a controller with a broken
 * ClusterRole binding sees it. `requests` counts what it sent, by method and status code.
 */
export async function unprivilegedClient(
  world: Pick<ScenarioWorld, 'client' | 'ns'>,
  name: string,
): Promise<{ client: KubeClient; requests: Map<string, number> }> {
  const { requests, metrics } = countedRequests();
  await world.client.request('POST', `/api/v1/namespaces/${world.ns}/serviceaccounts`, {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name },
  });
  const issued = (await world.client.request(
    'POST',
    `/api/v1/namespaces/${world.ns}/serviceaccounts/${name}/token`,
    { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} },
  )) as { status: { token: string } };
  const { server, namespace, insecureSkipTlsVerify, caPem, tlsServerName } = world.client.config;
  const client = new KubeClient({
    config: {
      server,
      namespace,
      insecureSkipTlsVerify,
      ...(caPem !== undefined ? { caPem } : {}),
      ...(tlsServerName !== undefined ? { tlsServerName } : {}),
      token: issued.status.token,
    },
    metrics,
  });
  return { client, requests };
}
