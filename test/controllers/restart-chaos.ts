// Restart safety of the Sandbox controller (issue 5, "Must show"): while a driver creates,
// suspends, resumes and expires Sandboxes, the manager — `agent-sandbox controller` as a child
// process — is SIGKILLed at seeded random moments and restarted. After the last restart the
// scenario waits until every invariant of invariants.ts holds on objects listed from the API
// server, or reports the violations still open at the deadline. One module, two targets: the
// embedded API server (the scenario plays the kubelet) and the real cluster (kwok runs the Pods).
import {
  PERSISTENT_VOLUME_CLAIMS,
  PODS,
  SERVICES,
  isNotFound,
  type KubeClient,
} from '@agent-sandbox/kube';
import type { KubeObject, PersistentVolumeClaim, Pod, Service } from '@agent-sandbox/kube-types';
import { SANDBOXES } from '@agent-sandbox/controllers';
import { runningPodStatus } from '@agent-sandbox/controllers/testing';
import { chaosPlan, type ChaosPlan, type ChaosPlanOptions } from './chaos-plan.ts';
import { runDriver, type DriverResult } from './chaos-driver.ts';
import { checkInvariants, type ObservedState, type SandboxObject } from './invariants.ts';
import { startManager, type ManagerProcess, type ManagerSample } from './manager-process.ts';

export interface ChaosTarget {
  /** The test's own client (never killed): driver, kubelet loop and the final check. */
  client: KubeClient;
  namespace: string;
  /** The kubeconfig the manager child process gets. */
  managerKubeconfig: string;
  /** No kubelet on the target: the scenario marks Pods Running and Ready itself. */
  playKubelet: boolean;
  /** Finalizers no controller on the target removes (see InvariantOptions). */
  unservedFinalizers?: readonly string[];
}

export interface ChaosOptions extends ChaosPlanOptions {
  /**
   * Wait this long after the final restart for all invariants to hold (a 2-core machine at load
   * average 15 took up to 35 s). @default 90_000
   */
  convergeTimeoutMs?: number;
  /** Progress lines (seed, one per manager generation, convergence). */
  log: (line: string) => void;
}

/** One manager process from start to SIGKILL (or, for the last, to the end of the run). */
export interface Generation {
  index: number;
  /** ms from spawn to `serving` (tsx start, client, metrics server). */
  startupMs: number;
  /** ms it lived after serving. */
  liveMs: number;
  /** ms from serving until its caches synced and workers started; undefined: never did. */
  syncMs: number | undefined;
  sample: ManagerSample;
  killed: boolean;
}

export interface ChaosResult {
  plan: ChaosPlan;
  driver: DriverResult;
  generations: Generation[];
  /** Violations when the wait ended; [] = converged. */
  violations: string[];
  /** ms from the final manager's start until all invariants held (undefined: never). */
  convergedAfterMs: number | undefined;
  /** Unexpected errors of the scenario's kubelet loop (embedded target). */
  kubeletErrors: string[];
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** After its planned life, a manager gets up to this long to be caught mid-reconcile. */
const BUSY_WAIT_MS = 3_000;

/**
 * Scrapes /metrics every 20 ms until a reconcile is in flight (or a key is queued), so the kill
 * that follows at once cuts a reconcile off between its API writes; after `waitMs` it gives up
 * and returns the idle sample (the kill then lands between reconciles, also a valid point).
 */
async function sampleWhenBusy(manager: ManagerProcess, waitMs: number): Promise<ManagerSample> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const sample = await manager.sample();
    if (sample.activeWorkers > 0 || sample.queueDepth > 0 || Date.now() > deadline) return sample;
    await sleep(20);
  }
}

export async function runRestartChaos(
  target: ChaosTarget,
  options: ChaosOptions,
): Promise<ChaosResult> {
  const plan = chaosPlan(options);
  options.log(
    `restart chaos: seed ${plan.seed} (replay with AGENT_SANDBOX_CHAOS_SEED=${plan.seed}), ` +
      `${plan.sandboxes.length} Sandboxes, ${plan.kills.length} kills`,
  );
  const stopKubelet = new AbortController();
  const kubelet = target.playKubelet
    ? playKubelet(target.client, target.namespace, stopKubelet.signal)
    : Promise.resolve([]);
  const generations: Generation[] = [];
  let manager: ManagerProcess | undefined;
  try {
    const startMs = Date.now();
    const driving = runDriver(target.client, target.namespace, plan, startMs);
    for (const [index, kill] of plan.kills.entries()) {
      const spawnedAt = Date.now();
      manager = startManager(target.managerKubeconfig);
      await manager.serving;
      const servingAt = Date.now();
      await sleep(kill.liveMs);
      const sample = await sampleWhenBusy(manager, BUSY_WAIT_MS);
      await manager.kill();
      const generation: Generation = {
        index,
        startupMs: servingAt - spawnedAt,
        liveMs: Date.now() - servingAt,
        syncMs: sinceServing(manager, servingAt),
        sample,
        killed: true,
      };
      generations.push(generation);
      options.log(describeGeneration(generation));
      await sleep(kill.downMs);
    }
    const finalStart = Date.now();
    manager = startManager(target.managerKubeconfig);
    await manager.serving;
    const servingAt = Date.now();
    const driver = await driving;
    options.log(
      `driver done after ${Date.now() - startMs} ms: ${driver.errors.length} failed writes, ` +
        `${driver.skippedExpired} spec patches found the Sandbox expired and deleted`,
    );
    const lastExpiry = Math.max(
      0,
      ...plan.sandboxes.map((s) => (s.expiry ? startMs + s.expiry.atMs : 0)),
    );
    const { violations, convergedAt } = await awaitConvergence(
      target,
      manager,
      driver.records,
      lastExpiry,
      options.convergeTimeoutMs ?? 90_000,
    );
    const convergedAfterMs = convergedAt === undefined ? undefined : convergedAt - finalStart;
    const sample = await manager.sample();
    const final: Generation = {
      index: plan.kills.length,
      startupMs: servingAt - finalStart,
      liveMs: Date.now() - servingAt,
      syncMs: sinceServing(manager, servingAt),
      sample,
      killed: false,
    };
    generations.push(final);
    options.log(describeGeneration(final));
    options.log(
      convergedAfterMs === undefined
        ? `not converged: ${violations.length} violations, first: ${violations.slice(0, 5).join(' | ')}`
        : `converged ${convergedAfterMs} ms after the final restart`,
    );
    stopKubelet.abort();
    const kubeletErrors = await kubelet;
    return { plan, driver, generations, violations, convergedAfterMs, kubeletErrors };
  } finally {
    await manager?.kill();
    stopKubelet.abort();
    await kubelet;
  }
}

function sinceServing(manager: ManagerProcess, servingAt: number): number | undefined {
  const started = manager.workersStartedAt();
  return started === undefined ? undefined : Math.max(0, started - servingAt);
}

function describeGeneration(g: Generation): string {
  const s = g.sample;
  return (
    `manager ${g.index}${g.killed ? ' SIGKILLed' : ' (final)'} after ${g.liveMs} ms serving ` +
    `(startup ${g.startupMs} ms, ` +
    (g.syncMs === undefined ? 'caches never synced' : `workers after ${g.syncMs} ms`) +
    `): ${s.reconciles} reconciles (${s.reconcileErrors} errors), ` +
    `${s.writes} API writes; at the ${g.killed ? 'kill' : 'end'}: ` +
    `${s.activeWorkers} reconciles in flight, ${s.queueDepth} queued`
  );
}

/**
 * Polls until every invariant holds, the last planned expiry has passed, and the final manager
 * has made its own pass (at least one reconcile per Sandbox, as its informers' initial adds
 * queue) and is idle — sampled before the listing, so the state checked is that pass's result
 * and not one left over from an earlier generation. Returns the violations at the end.
 */
async function awaitConvergence(
  target: ChaosTarget,
  manager: ManagerProcess,
  records: DriverResult['records'],
  lastExpiry: number,
  timeoutMs: number,
): Promise<{ violations: string[]; convergedAt?: number }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const sample = await manager.sample();
    const now = new Date();
    const state = await observe(target.client, target.namespace);
    const violations = checkInvariants(records, state, {
      namespace: target.namespace,
      now,
      ...(target.unservedFinalizers ? { unservedFinalizers: target.unservedFinalizers } : {}),
    });
    const idleAfterPass =
      sample.reconciles >= state.sandboxes.length &&
      sample.activeWorkers === 0 &&
      sample.queueDepth === 0;
    if (violations.length === 0 && now.getTime() > lastExpiry && idleAfterPass)
      return { violations, convergedAt: Date.now() };
    if (Date.now() > deadline) return { violations };
    await sleep(1_000);
  }
}

/** Sandboxes, Pods, Services and PVCs of the namespace, listed from the API server. */
export async function observe(client: KubeClient, ns: string): Promise<ObservedState> {
  const [sandboxes, pods, services, pvcs] = await Promise.all([
    client.list<SandboxObject>(SANDBOXES, ns),
    client.list<Pod & KubeObject>(PODS, ns),
    client.list<Service & KubeObject>(SERVICES, ns),
    client.list<PersistentVolumeClaim & KubeObject>(PERSISTENT_VOLUME_CLAIMS, ns),
  ]);
  return {
    sandboxes: sandboxes.items,
    pods: pods.items,
    services: services.items,
    pvcs: pvcs.items,
  };
}

/**
 * The embedded server has no kubelet: every Pod that is not yet Ready gets Running, Ready and a
 * unique IP through `pods/status`, as markPodRunning in the controllers' harness does. Returns the
 * unexpected errors it met (a Pod deleted between the list and the status write is expected).
 */
async function playKubelet(client: KubeClient, ns: string, signal: AbortSignal): Promise<string[]> {
  const errors: string[] = [];
  let next = 1;
  const ips = new Map<string, string>();
  const unexpected = (err: unknown): void => {
    if (!signal.aborted && !isNotFound(err)) errors.push(String(err));
  };
  while (!signal.aborted) {
    const pods = await client.list<Pod & KubeObject>(PODS, ns, { signal }).catch((err: unknown) => {
      unexpected(err);
      return { items: [] };
    });
    const pending = pods.items.filter(
      (p) =>
        !p.metadata.deletionTimestamp &&
        p.status?.conditions?.find((c) => c.type === 'Ready')?.status !== 'True',
    );
    await Promise.all(
      pending.map(async (pod) => {
        const uid = pod.metadata.uid ?? '';
        const ip = ips.get(uid) ?? `10.244.${Math.floor(next / 250)}.${(next++ % 250) + 1}`;
        ips.set(uid, ip);
        await markPodRunning(client, ns, pod.metadata.name ?? '', ip, signal).catch(unexpected);
      }),
    );
    await sleep(250);
  }
  return errors;
}

async function markPodRunning(
  client: KubeClient,
  ns: string,
  name: string,
  ip: string,
  signal: AbortSignal,
): Promise<void> {
  await client.patch(
    PODS,
    ns,
    name,
    { type: 'merge', body: { status: runningPodStatus(ip) } },
    { subresource: 'status', signal },
  );
}
