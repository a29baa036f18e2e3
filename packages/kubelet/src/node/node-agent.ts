// The node agent: registers this machine as a Node (with its Lease), binds unscheduled pods to it
// when no scheduler runs (embedded mode), runs a PodWorker per pod bound here, and serves
// exec/logs/attach lookups for the streaming server (PodContainers).
import {
  formatTime,
  type ConfigMap,
  type KubeObject,
  type Pod,
  type PodStatus,
  type Secret,
} from '@agent-sandbox/kube-types';
import {
  CONFIG_MAPS,
  Informer,
  LEASES,
  PERSISTENT_VOLUME_CLAIMS,
  PODS,
  SECRETS,
  formatMicroTime,
  isConflict,
  isNotFound,
  type KubeClient,
  type ResourceRef,
} from '@agent-sandbox/kube';
import { readdir, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { errorMessage, KubeletError } from '../errors.ts';
import type { ImageService } from '../images/image-service.ts';
import type { PodNetwork } from '../network/pod-network.ts';
import { execStart } from '../node-exec/exec-spec.ts';
import { NodeExecSockets } from '../node-exec/registry.ts';
import {
  execUser,
  type ContainerRuntime,
  type ExecProcess,
  type HostCommand,
} from '../runtime/container-runtime.ts';
import { BoundStarts } from './bound-starts.ts';
import { removeCgroups } from './cgroup-removal.ts';
import { removeMountedDir } from './container-rootfs.ts';
import type { NodeContext, NodeLogger } from './node-context.ts';
import { desiredLease, desiredNode, nodeStatus, type NodeFacts } from './node-object.ts';
import type { AttachTarget, DaemonExec, PodContainers, PodRef } from './pod-containers.ts';
import type { PodDaemon } from './pod-daemon.ts';
import { kubeEventSink } from './pod-events.ts';
import type { PodPhaseSink } from './pod-phases.ts';
import { PodWorker } from './pod-worker.ts';
import { RootPool, rootPoolDir, rootPoolLimits, type RootPoolSettings } from './root-pool.ts';

export const NODES: ResourceRef = {
  group: '',
  version: 'v1',
  plural: 'nodes',
  kind: 'Node',
  namespaced: false,
};
export const RUNTIME_CLASSES: ResourceRef = {
  group: 'node.k8s.io',
  version: 'v1',
  plural: 'runtimeclasses',
  kind: 'RuntimeClass',
  namespaced: false,
};
export const CGROUP_PARENT = 'agent-sandbox';

export interface NodeAgentOptions extends RootPoolSettings {
  client: KubeClient;
  facts: Omit<NodeFacts, 'handlers' | 'containerRuntimeVersion'>;
  /** Runtimes by handler; the first available one is the default for pods without runtimeClassName. */
  runtimes: readonly ContainerRuntime[];
  network: PodNetwork;
  images: ImageService;
  /** Holds pods/, logs/, claims/ and rootpool/. */
  dataDir: string;
  /** Bind pods with no nodeName and the default scheduler to this node (no scheduler runs). @default true */
  bindUnscheduled?: boolean;
  allowHostPath?: boolean;
  /** First restart/pull back-off. @default 10_000 */
  backoffBaseMs?: number;
  /** First wait before a failed sandbox set-up is retried (doubling to 30 s). @default 1000 */
  sandboxRetryBaseMs?: number;
  /** @default 4096 */
  pidsLimit?: number;
  /**
   * A Pod's first containers are created while its volumes are filled and held at a start gate
   * until they are (runtimes with `startGate`; pod-worker.ts, ADR 0042); a function decides per
   * Pod (bench:node's interleaved A/B). Off by default: on a loaded two-core machine it gained
   * nothing (the staged root's mount and the loop, not runc, held the create back). @default false
   */
  earlyCreate?: boolean | ((pod: Pod) => boolean);
  extraReadOnlyMounts?: readonly { destination: string; source: string }[];
  /** A process started in each Pod's first app container (pod-daemon.ts); absent: none. */
  podDaemon?: PodDaemon;
  log?: NodeLogger;
  /** Receives the timed steps of each Pod's start, for profiling (bench/node); absent: none. */
  onPhase?: PodPhaseSink;
  /** Lease renewal period. @default 10_000 */
  leaseRenewMs?: number;
  /**
   * A Pod this agent bound and started at once is read after this long while the node watch has
   * not delivered it (bound-starts.ts). @default 30_000
   */
  boundPodReadMs?: number;
  /**
   * The cgroup (in every hierarchy) that holds this agent's `pod<uid>` cgroups; two agents on one
   * machine need two, since each removes what it finds there at start. @default 'agent-sandbox'
   */
  cgroupParent?: string;
}

type PodObject = Pod & KubeObject;

const quiet: NodeLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };

export class NodeAgent implements PodContainers {
  readonly name: string;
  readonly #o: NodeAgentOptions;
  readonly #ctx: NodeContext;
  readonly #workers = new Map<string, PodWorker>();
  readonly #runtimes = new Map<string, ContainerRuntime>();
  readonly #nodeExec = new NodeExecSockets();
  readonly #abort = new AbortController();
  readonly #bound: BoundStarts;
  readonly #rootPool: RootPool;
  #timers: NodeJS.Timeout[] = [];
  #defaultHandler = '';
  /** Pod starts under way (NodeContext.startBegun). */
  #starting = 0;
  #running: Promise<unknown>[] = [];

  constructor(options: NodeAgentOptions) {
    this.#o = options;
    this.name = options.facts.name;
    const log = options.log ?? quiet;
    this.#rootPool = new RootPool({
      dir: rootPoolDir(options.dataDir),
      ...rootPoolLimits(options),
      busy: () => this.#starting > 0,
      onError: (err) => log.warn({ err: errorMessage(err) }, 'root pool'),
    });
    const poolFor = options.rootPoolFor ?? (() => true);
    const c = options.client;
    const get = async <T extends KubeObject>(ref: ResourceRef, ns: string, name: string) =>
      c
        .get<T>(ref, ns, name)
        .catch((e: unknown) => (isNotFound(e) ? undefined : Promise.reject(e)));
    this.#ctx = {
      log,
      nodeName: this.name,
      events: kubeEventSink(c),
      images: options.images,
      network: options.network,
      nodeIP: options.facts.ip,
      podsDir: join(options.dataDir, 'pods'),
      logsDir: join(options.dataDir, 'logs'),
      claimsDir: join(options.dataDir, 'claims'),
      allowHostPath: options.allowHostPath ?? false,
      backoffBaseMs: options.backoffBaseMs ?? 10_000,
      sandboxRetryBaseMs: options.sandboxRetryBaseMs ?? 1000,
      pidsLimit: options.pidsLimit ?? 4096,
      earlyCreate: earlyCreatePolicy(options.earlyCreate),
      nodeMemoryBytes: options.facts.memoryBytes,
      cgroupParent: options.cgroupParent ?? CGROUP_PARENT,
      extraReadOnlyMounts: options.extraReadOnlyMounts ?? [],
      podDaemon: options.podDaemon,
      nodeExec: this.#nodeExec,
      onPhase: options.onPhase,
      objects: {
        configMap: (ns, name) => get<ConfigMap & KubeObject>(CONFIG_MAPS, ns, name),
        secret: (ns, name) => get<Secret & KubeObject>(SECRETS, ns, name),
        claimUid: async (ns, name) =>
          (await get(PERSISTENT_VOLUME_CLAIMS, ns, name))?.metadata?.uid,
        serviceAccountToken: async (ns, sa, audiences, expirationSeconds) => {
          const res = (await c.request(
            'POST',
            `/api/v1/namespaces/${ns}/serviceaccounts/${sa}/token`,
            {
              apiVersion: 'authentication.k8s.io/v1',
              kind: 'TokenRequest',
              spec: { ...(audiences ? { audiences } : {}), expirationSeconds },
            },
          )) as { status?: { token?: string } };
          return res.status?.token ?? '';
        },
      },
      rootPoolFor: (pod) => (poolFor(pod) ? this.#rootPool : undefined),
      runtimeFor: (pod) => this.#runtimeFor(pod),
      writeStatus: (pod, status) => this.#writeStatus(pod, status),
      deletePod: async (pod) => {
        const m = pod.metadata ?? {};
        await c
          .delete(PODS, m.namespace, m.name ?? '', {
            gracePeriodSeconds: 0,
            ...(m.uid ? { preconditions: { uid: m.uid } } : {}),
          })
          .catch((e: unknown) => {
            if (!isNotFound(e) && !isConflict(e)) throw e;
          });
      },
      releasePod: (uid) => this.#releasePod(uid),
      startBegun: () => {
        this.#starting++;
        let settled = false;
        return () => {
          if (settled) return;
          settled = true;
          if (--this.#starting > 0 || this.#abort.signal.aborted) return;
          this.#o.network.idle?.();
          this.#rootPool.idle();
        };
      },
    };
    this.#bound = new BoundStarts({
      nodeName: this.name,
      observe: (pod) => this.#observe(pod),
      read: (ns, name) => get<PodObject>(PODS, ns, name),
      vanished: (uid) => this.#vanish(uid),
      running: (uid) => this.#workers.has(uid),
      onReadError: (err) =>
        this.#ctx.log.warn({ err: String(err) }, 'reading a Pod bound here failed'),
      ...(options.boundPodReadMs !== undefined ? { readAfterMs: options.boundPodReadMs } : {}),
      onDelivered: (uid) => {
        const m = this.#workers.get(uid)?.pod.metadata;
        const now = performance.now();
        const pod = `${m?.namespace}/${m?.name}`;
        options.onPhase?.({ pod, uid, phase: 'watch-delivered', startMs: now, endMs: now });
      },
    });
  }

  /** Probes runtimes, cleans up what a previous run left, registers the Node and starts watching. */
  async start(): Promise<void> {
    const reasons: string[] = [];
    for (const r of this.#o.runtimes) {
      const p = await r.probe();
      if (p.available) this.#runtimes.set(r.handler, r);
      else {
        reasons.push(`${r.handler}: ${p.reason}`);
        this.#ctx.log.warn({ handler: r.handler, reason: p.reason }, 'runtime unavailable');
      }
    }
    // The first runtime that runs here is the default: a fallback (bubblewrap) listed after runc
    // serves Pods without runtimeClassName where runc cannot run (ADR 0034).
    const defaultRuntime = this.#o.runtimes.find((r) => this.#runtimes.has(r.handler));
    if (!defaultRuntime)
      throw new KubeletError(
        'RuntimeUnavailable',
        `no configured runtime can run on this machine (${reasons.join('; ') || 'none configured'})`,
      );
    if (defaultRuntime !== this.#o.runtimes[0])
      this.#ctx.log.warn(
        { handler: defaultRuntime.handler, instead: this.#o.runtimes[0]?.handler },
        'the first runtime cannot run here; Pods without runtimeClassName use the fallback',
      );
    this.#defaultHandler = defaultRuntime.handler;
    await this.#cleanupStale();
    this.#o.network.prepare?.();
    const version = (await defaultRuntime.probe()).version ?? '';
    const facts: NodeFacts = {
      ...this.#o.facts,
      handlers: [...this.#runtimes.keys()],
      containerRuntimeVersion: `${defaultRuntime.handler}://${version.replace(/^\D+/, '')}`,
    };
    const uid = await this.#registerNode(facts);
    await this.#renewLease(uid);
    const every = (ms: number, f: () => Promise<void>) =>
      this.#timers.push(
        setInterval(
          () =>
            f().catch((e: unknown) =>
              this.#ctx.log.warn({ err: String(e) }, 'node heartbeat failed'),
            ),
          ms,
        ),
      );
    every(this.#o.leaseRenewMs ?? 10_000, () => this.#renewLease(uid));
    every(60_000, () => this.#patchNodeStatus(facts));
    this.#watchPods();
    if (this.#o.bindUnscheduled ?? true) this.#bindUnscheduled();
  }

  /** Stops watching and stops every container (nothing keeps running without the agent). */
  async stop(): Promise<void> {
    this.#abort.abort();
    this.#bound.stop();
    this.#timers.forEach(clearInterval);
    for (const w of this.#workers.values()) w.vanish();
    await Promise.all([...this.#workers.values()].map((w) => w.done));
    await Promise.allSettled(this.#running);
    await this.#o.network.drain?.();
    await this.#rootPool.drain();
    await this.#nodeExec.closeAll(this.#ctx.podsDir);
    await removeCgroups(this.#ctx.cgroupParent, '');
  }

  get handlers(): string[] {
    return [...this.#runtimes.keys()];
  }

  async #runtimeFor(pod: Pod): Promise<ContainerRuntime> {
    const className = pod.spec?.runtimeClassName;
    let handler = this.#defaultHandler;
    if (className) {
      const rc = await this.#o.client
        .get<KubeObject & { handler?: string }>(RUNTIME_CLASSES, undefined, className)
        .catch((e: unknown) => {
          if (isNotFound(e))
            throw new KubeletError(
              'NotFound',
              `RuntimeClass "${className}" not found: create it or remove spec.runtimeClassName`,
            );
          throw e;
        });
      handler = rc.handler ?? '';
    }
    const runtime = this.#runtimes.get(handler);
    if (!runtime)
      throw new KubeletError(
        'RuntimeUnavailable',
        `runtime handler "${handler}"${className ? ` (RuntimeClass ${className})` : ''} is not available on node ${this.name}; available: ${this.handlers.join(', ')}`,
      );
    return runtime;
  }

  async #writeStatus(pod: Pod, status: PodStatus): Promise<Pod | undefined> {
    const c = this.#o.client;
    let current = pod;
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        return await c.updateStatus<PodObject>(PODS, { ...current, status } as PodObject);
      } catch (e) {
        if (isNotFound(e)) return undefined;
        if (!isConflict(e)) throw e;
        const fresh = await c
          .get<PodObject>(PODS, pod.metadata?.namespace, pod.metadata?.name ?? '')
          .catch(() => undefined);
        if (!fresh || fresh.metadata?.uid !== pod.metadata?.uid) return undefined;
        current = fresh;
      }
    }
    return undefined;
  }

  async #registerNode(facts: NodeFacts): Promise<string> {
    const c = this.#o.client;
    const desired = desiredNode(facts);
    let node = await c
      .get(NODES, undefined, facts.name)
      .catch((e: unknown) => (isNotFound(e) ? undefined : Promise.reject(e)));
    if (!node) node = await c.create(NODES, desired);
    else
      node = await c.patch(NODES, undefined, facts.name, {
        type: 'merge',
        body: { metadata: { labels: desired.metadata.labels } },
      });
    await this.#patchNodeStatus(facts);
    return node.metadata.uid ?? '';
  }

  async #patchNodeStatus(facts: NodeFacts): Promise<void> {
    const c = this.#o.client;
    const current = (await c.get(NODES, undefined, facts.name)) as KubeObject & {
      status?: Record<string, unknown>;
    };
    await c.patch(
      NODES,
      undefined,
      facts.name,
      {
        type: 'merge',
        body: { status: nodeStatus(facts, formatTime(Date.now()), current.status) },
      },
      { subresource: 'status' },
    );
  }

  async #renewLease(nodeUid: string): Promise<void> {
    const c = this.#o.client;
    // kube-node-lease is the API server's to create (ours and kube-apiserver's do); a node may
    // not create namespaces.
    const lease = desiredLease(this.name, nodeUid, formatMicroTime(new Date()));
    const existing = await c
      .get(LEASES, 'kube-node-lease', this.name)
      .catch((e: unknown) => (isNotFound(e) ? undefined : Promise.reject(e)));
    if (!existing) await c.create(LEASES, lease);
    else await c.update(LEASES, { ...existing, spec: lease.spec });
  }

  #watchPods(): void {
    const informer = new Informer<PodObject>({
      client: this.#o.client,
      resource: PODS,
      fieldSelector: `spec.nodeName=${this.name}`,
    });
    // Every delivery ends a bound start's wait for the watch (bound-starts.ts).
    const observe = (p: Pod): void => {
      if (this.#bound.delivered(p.metadata?.uid ?? '', false)) this.#observe(p);
    };
    informer.addHandlers({
      onAdd: observe,
      onUpdate: (_o, p) => observe(p),
      onDelete: (p) => {
        if (this.#bound.delivered(p.metadata?.uid ?? '', true)) this.#vanish(p.metadata?.uid ?? '');
      },
    });
    this.#running.push(informer.run(this.#abort.signal));
  }

  /** The Pod is gone: its worker stops everything and writes nothing. */
  #vanish(uid: string): void {
    const w = this.#workers.get(uid);
    if (!w) return;
    w.vanish();
    void w.done.then(() => this.#workers.delete(w.uid));
  }

  #observe(pod: Pod): void {
    if (this.#abort.signal.aborted) return;
    // A mirror Pod shows a process the node runs outside the API (a static pod): never run it.
    if (pod.metadata?.annotations?.['kubernetes.io/config.mirror'] !== undefined) return;
    const uid = pod.metadata?.uid ?? '';
    const existing = this.#workers.get(uid);
    if (existing) {
      existing.update(pod);
      return;
    }
    const phase = pod.status?.phase;
    if (pod.metadata?.deletionTimestamp) {
      void this.#ctx.deletePod(pod);
      return;
    }
    if (phase === 'Succeeded' || phase === 'Failed') return;
    const w = new PodWorker(this.#ctx, pod);
    this.#workers.set(uid, w);
  }

  /** The embedded mode's scheduler: a Binding to this node for every unscheduled default pod. */
  #bindUnscheduled(): void {
    const informer = new Informer<PodObject>({
      client: this.#o.client,
      resource: PODS,
      fieldSelector: 'spec.nodeName=',
    });
    const bind = (p: Pod) => {
      const m = p.metadata ?? {};
      const scheduler = p.spec?.schedulerName ?? 'default-scheduler';
      if (
        p.spec?.nodeName ||
        m.deletionTimestamp ||
        scheduler !== 'default-scheduler' ||
        this.#abort.signal.aborted
      )
        return;
      // The uid precondition: the Pod started from this answer is the one that was bound.
      const body = {
        apiVersion: 'v1',
        kind: 'Binding',
        metadata: { name: m.name, namespace: m.namespace, ...(m.uid ? { uid: m.uid } : {}) },
        target: { apiVersion: 'v1', kind: 'Node', name: this.name },
      };
      const uid = m.uid ?? '';
      this.#bound.binding(uid);
      this.#o.client
        .request('POST', `/api/v1/namespaces/${m.namespace}/pods/${m.name}/binding`, body)
        .then(
          () => this.#bound.bound(p),
          (e: unknown) => {
            this.#bound.failed(uid);
            if (!isConflict(e) && !isNotFound(e))
              this.#ctx.log.warn(
                { pod: `${m.namespace}/${m.name}`, err: String(e) },
                'bind failed',
              );
          },
        );
    };
    informer.addHandlers({ onAdd: bind, onUpdate: (_o, p) => bind(p) });
    this.#running.push(informer.run(this.#abort.signal));
  }

  async #releasePod(uid: string): Promise<void> {
    await this.#nodeExec.close(uid, join(this.#ctx.podsDir, uid));
    await this.#o.network.tearDown({ uid });
    await removeCgroups(this.#ctx.cgroupParent, `pod${uid}`);
    await removeMountedDir(join(this.#ctx.podsDir, uid));
  }

  async #cleanupStale(): Promise<void> {
    for (const r of this.#runtimes.values()) for (const id of await r.list()) await r.remove(id);
    await this.#rootPool.start(); // after the containers: a previous run's entries are all idle
    await mkdir(this.#ctx.podsDir, { recursive: true });
    for (const uid of await readdir(this.#ctx.podsDir))
      await removeMountedDir(join(this.#ctx.podsDir, uid));
    for (const uid of await this.#o.network.list()) await this.#o.network.tearDown({ uid });
    await removeCgroups(this.#ctx.cgroupParent, '');
  }

  // PodContainers, for the streaming server.

  #worker(pod: PodRef): PodWorker {
    for (const w of this.#workers.values()) {
      const m = w.pod.metadata ?? {};
      if (m.namespace === pod.namespace && m.name === pod.name && (!pod.uid || pod.uid === w.uid))
        return w;
    }
    throw new KubeletError(
      'NotFound',
      `pod ${pod.namespace}/${pod.name} is not running on node ${this.name}`,
    );
  }

  #running_(pod: PodRef, container: string) {
    const w = this.#worker(pod);
    const slot = w.slot(container);
    if (!slot)
      throw new KubeletError('NotFound', `container ${container} is not valid for pod ${pod.name}`);
    if (slot.record.state.kind !== 'running' || !slot.instance)
      throw new KubeletError(
        'NotRunning',
        `container ${container} in pod ${pod.name} is not running (${slot.record.state.kind}${'reason' in slot.record.state ? `: ${slot.record.state.reason}` : ''})`,
      );
    return { w, slot, instance: slot.instance };
  }

  execCommand(
    pod: PodRef,
    container: string,
    argv: readonly string[],
    opts: { tty: boolean } & ExecProcess,
  ): HostCommand {
    const { w, instance } = this.#running_(pod, container);
    const user = execUser(instance.processConfig);
    return (w.runtime as ContainerRuntime).execCommand(instance.id, argv, {
      ...opts,
      ...(user ? { user } : {}),
    });
  }

  runtimeHandler(pod: PodRef): string {
    return this.#worker(pod).runtime?.handler ?? 'unknown';
  }

  async daemonExec(
    pod: PodRef,
    container: string,
    argv: readonly string[],
    own: ExecProcess = {},
  ): Promise<DaemonExec | undefined> {
    const { w, instance } = this.#running_(pod, container);
    // The daemon lives in the first app container: only its execs can be its forks.
    if (container !== w.pod.spec?.containers?.[0]?.name || !instance.processConfig)
      return undefined;
    const start = execStart(instance.processConfig, argv, own); // throws before a slot is taken
    const conn = await this.#nodeExec.get(w.uid)?.take();
    return conn && { ...conn, start };
  }

  logPath(
    pod: PodRef,
    container: string,
    opts: { previous: boolean },
  ): { path: string; running: boolean } | undefined {
    const slot = this.#worker(pod).slot(container);
    if (!slot)
      throw new KubeletError('NotFound', `container ${container} is not valid for pod ${pod.name}`);
    const n = slot.record.restartCount - (opts.previous ? 1 : 0);
    const path = slot.logs[n];
    if (!path) return undefined;
    return { path, running: !opts.previous && slot.record.state.kind === 'running' };
  }

  attach(pod: PodRef, container: string): AttachTarget {
    const { slot, instance } = this.#running_(pod, container);
    return {
      stdin: instance.process?.stdin,
      subscribe: (l) => instance.subscribe(l),
      exited: (instance.process?.exited ?? Promise.resolve()).then(() => undefined),
      tty:
        slot.record.state.kind === 'running' &&
        (this.#worker(pod).pod.spec?.containers ?? []).some(
          (c) => c.name === container && c.tty === true,
        ),
    };
  }

  netnsPath(pod: PodRef): string {
    const p = this.#worker(pod).netnsPath;
    if (!p)
      throw new KubeletError(
        'NotRunning',
        `pod ${pod.namespace}/${pod.name} has no network sandbox`,
      );
    return p;
  }
}

function earlyCreatePolicy(o: NodeAgentOptions['earlyCreate']): (pod: Pod) => boolean {
  return typeof o === 'function' ? o : () => o ?? false;
}
