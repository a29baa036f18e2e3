// One claims run on a target (upstream's scalability workload, perf §1.9): the API server's raw
// write rate (ConfigMaps, 50 in flight), then our manager with --extensions, a warm pool of P,
// and C claims created open-loop at R/s. Latency per claim from the client's watch (create sent →
// Ready seen) and from the controller (its first-observed → first-ready annotations, what the
// agent_sandbox_claim_controller_startup_latency_ms histogram observes), API writes per claim,
// controller CPU and peak RSS.
import { CONFIG_MAPS, NAMESPACES, type KubeClient } from '@agent-sandbox/kube';
import type { KubeObject } from '@agent-sandbox/kube-types';
import { SANDBOX_CLAIMS, SANDBOX_TEMPLATES, SANDBOX_WARM_POOLS } from '@agent-sandbox/controllers';
import { performance } from 'node:perf_hooks';
import { startController } from '../controller/controller-process.ts';
import { cpuSnapshot, cpuUsed, memoryMbOf } from '../controller/proc.ts';
import { parseSamples, sumBy, total } from '../controller/prom.ts';
import { readAuditWrites } from './audit.ts';
import { buckets, histogramQuantile, percentiles, type Percentiles } from './stats.ts';
import { highestHeld, nextStepRate, type StepSchedule } from './steps.ts';
import type { ClaimsTarget } from './target.ts';

export interface RunOptions {
  pool: number;
  claims: number;
  rate: number;
  controllerArgs: readonly string[];
  logDir: string;
  log: (m: string) => void;
  /** After the main run, search the highest rate that holds p99 ≤ 500 ms (steps.ts). */
  steps?: StepSchedule;
}

export interface RunResult {
  target: string;
  pool: number;
  claims: number;
  rate: number;
  rawWritesPerSecond: number;
  poolReadySeconds: number;
  achievedRate: number;
  client: Percentiles | undefined;
  controller: Percentiles | undefined;
  /** Upper bucket bounds of the controller histogram (its buckets start at 100 ms). */
  histogram: { p50?: number; p90?: number; p99?: number };
  warm: number;
  cold: number;
  apiWritesPerClaim: number;
  writesByVerb: Record<string, number>;
  /**
   * Writes in the claim phase per user agent ('agent-sandbox' is the manager) and per "verb
   * resource[/subresource]", from the API server's audit log (embedded only).
   */
  writesByResource?: Record<string, Record<string, number>>;
  /**
   * From the first claim until the pool is Ready at its size again: how long, and the manager's
   * writes per claim in that span (the claim phase above ends when the last claim is Ready, while
   * replacements still come up and the pool's status follows them).
   */
  refill: RefillResult;
  controllerCpuSeconds: number;
  controllerPeakRssMb: number | undefined;
  apiserverCpuSeconds: Record<string, number>;
  points: [number, number, number][];
  /** The rate-stepping phase (empty with --no-step), and how long it ran. */
  steps: StepResult[];
  stepPhaseSeconds?: number;
  /** The highest asked rate whose step held (p99 ≤ 500 ms, ≥ 90 % of the rate achieved). */
  highestSustainedRate: number | undefined;
}

export interface RefillResult {
  seconds: number;
  apiWritesPerClaim: number;
  /** The manager's writes per "verb resource[/subresource]" per claim (embedded only). */
  byResource?: Record<string, number>;
}

export interface StepResult {
  rate: number;
  achievedRate: number;
  claims: number;
  client: Percentiles | undefined;
  held: boolean;
}

type Claim = KubeObject & {
  status?: { conditions?: { type: string; status: string }[]; sandbox?: { name?: string } };
};
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const isReady = (c: Claim): boolean =>
  c.status?.conditions?.some((x) => x.type === 'Ready' && x.status === 'True') ?? false;

async function rawWriteRate(
  client: KubeClient,
  ns: string,
  n = 300,
  inFlight = 50,
): Promise<number> {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      for (let i = next++; i < n; i = next++) {
        await client.create(CONFIG_MAPS, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `raw-${i}`, namespace: ns },
          data: { i: String(i) },
        } as KubeObject);
      }
    }),
  );
  return Math.round((n / ((performance.now() - start) / 1000)) * 10) / 10;
}

function writes(text: string): Map<string, number> {
  return sumBy(
    parseSamples(text, ['rest_client_requests_total']),
    'rest_client_requests_total',
    ['method'],
    (l) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(l['method'] ?? ''),
  );
}

export async function runClaims(target: ClaimsTarget, o: RunOptions): Promise<RunResult> {
  const { client } = target;
  const ns = `claims-${Date.now().toString(36)}`;
  await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  const rawWritesPerSecond = await rawWriteRate(client, ns);
  o.log(`${target.name}: raw write rate ${rawWritesPerSecond}/s`);
  const kubelet = target.kubelet(ns);
  const controller = await startController(
    target.kubeconfig,
    `${o.logDir}/controller-${target.name}.log`,
    ['--extensions', ...o.controllerArgs],
  );
  try {
    const group = GROUP;
    await client.create(SANDBOX_TEMPLATES, {
      apiVersion: group,
      kind: 'SandboxTemplate',
      metadata: { name: 'bench', namespace: ns },
      spec: {
        podTemplate: {
          spec: {
            terminationGracePeriodSeconds: 1,
            containers: [{ name: 'main', image: 'busybox' }],
          },
        },
      },
    } as KubeObject);
    const poolStart = performance.now();
    await client.create(SANDBOX_WARM_POOLS, {
      apiVersion: group,
      kind: 'SandboxWarmPool',
      metadata: { name: 'bench', namespace: ns },
      spec: { sandboxTemplateRef: { name: 'bench' }, replicas: o.pool },
    } as KubeObject);
    for (let last = -1; ;) {
      const pool = await client.get<KubeObject & { status?: { readyReplicas?: number } }>(
        SANDBOX_WARM_POOLS,
        ns,
        'bench',
      );
      const ready = pool.status?.readyReplicas ?? 0;
      if (ready >= o.pool) break;
      if (ready !== last && ready % 100 < 10)
        o.log(`${target.name}: pool ${ready}/${o.pool} Ready`);
      last = ready;
      if (performance.now() - poolStart > 20 * 60_000)
        throw new Error('the pool did not get Ready in 20 min');
      await sleep(1_000);
    }
    const poolReadySeconds = Math.round((performance.now() - poolStart) / 100) / 10;
    o.log(`${target.name}: pool of ${o.pool} Ready after ${poolReadySeconds} s`);
    await sleep(2_000); // let the replenish-free steady state settle
    const before = await controller.metrics();
    const cpuBefore = cpuSnapshot({ controller: controller.pid, ...target.pids });
    const phaseFrom = Date.now();

    const wave = await claimWave(client, ns, { rate: o.rate, count: o.claims, prefix: 'c' });
    const { sent, readyAt, start, achievedRate } = wave;
    await sleep(1_500); // the first-ready annotations follow the status writes
    const after = await controller.metrics();
    const phaseTo = Date.now();
    const cpu = cpuUsed(cpuBefore, cpuSnapshot({ controller: controller.pid, ...target.pids }));
    const claims = (await client.list<Claim>(SANDBOX_CLAIMS, ns)).items;
    const controllerMs: Record<string, number> = {};
    let warm = 0;
    for (const c of claims) {
      const a = c.metadata.annotations ?? {};
      const from = Date.parse(a['agents.x-k8s.io/controller-first-observed-at'] ?? '');
      const to = Date.parse(a['agents.x-k8s.io/claim-first-ready-at'] ?? '');
      if (!Number.isNaN(from) && !Number.isNaN(to)) controllerMs[c.metadata.name ?? ''] = to - from;
      if (c.status?.sandbox?.name && c.status.sandbox.name !== c.metadata.name) warm++;
    }
    const points: [number, number, number][] = [];
    const clientMs: number[] = [];
    for (const [name, at] of sent) {
      const r = readyAt.get(name);
      if (r === undefined) continue;
      clientMs.push(r - at);
      points.push([(at - start) / 1000, r - at, controllerMs[name] ?? 0]);
    }
    const fam = 'agent_sandbox_claim_controller_startup_latency_ms';
    const hb = buckets(before, fam);
    const ha = buckets(after, fam);
    const w0 = writes(before);
    const w1 = writes(after);
    const writesByVerb: Record<string, number> = {};
    for (const [k, v] of w1) writesByVerb[k] = v - (w0.get(k) ?? 0);
    const refill = await refillWrites(target, controller, { ns, o, w0, phaseFrom, start });
    const stepsFrom = performance.now();
    const steps = o.steps === undefined ? [] : await stepRates(client, ns, o, target.name);
    const stepPhaseSeconds = Math.round((performance.now() - stepsFrom) / 1000);
    return {
      target: target.name,
      pool: o.pool,
      claims: o.claims,
      rate: o.rate,
      rawWritesPerSecond,
      poolReadySeconds,
      achievedRate,
      client: percentiles(clientMs),
      controller: percentiles(Object.values(controllerMs)),
      histogram: {
        ...(histogramQuantile(hb, ha, 0.5) !== undefined
          ? { p50: histogramQuantile(hb, ha, 0.5) }
          : {}),
        ...(histogramQuantile(hb, ha, 0.9) !== undefined
          ? { p90: histogramQuantile(hb, ha, 0.9) }
          : {}),
        ...(histogramQuantile(hb, ha, 0.99) !== undefined
          ? { p99: histogramQuantile(hb, ha, 0.99) }
          : {}),
      },
      warm,
      cold: claims.length - warm,
      apiWritesPerClaim: Math.round(((total(w1) - total(w0)) / o.claims) * 100) / 100,
      writesByVerb,
      ...(target.auditLog !== undefined
        ? { writesByResource: readAuditWrites(target.auditLog, phaseFrom, phaseTo) }
        : {}),
      refill,
      controllerCpuSeconds: cpu['controller'] ?? 0,
      controllerPeakRssMb: memoryMbOf(controller.pid, 'VmHWM'),
      apiserverCpuSeconds: Object.fromEntries(
        Object.entries(cpu).filter(([k]) => k !== 'controller'),
      ),
      points,
      steps,
      ...(o.steps !== undefined ? { stepPhaseSeconds } : {}),
      highestSustainedRate: highestHeld(steps),
    };
  } finally {
    await controller.stop();
    await kubelet?.stop();
  }
}

const GROUP = 'extensions.agents.x-k8s.io/v1beta1';
const STEP_P99_LIMIT_MS = 500;

interface Wave {
  sent: Map<string, number>;
  readyAt: Map<string, number>;
  start: number;
  achievedRate: number;
}

/** Creates `count` claims open-loop at `rate`/s and waits (10 min at most) until all are Ready. */
async function claimWave(
  client: KubeClient,
  ns: string,
  w: {
    rate: number;
    count: number;
    prefix: string;
    labels?: Record<string, string>;
    /** Stop waiting for Ready this long after the first create. @default 10 minutes */
    readyWithinMs?: number;
  },
): Promise<Wave> {
  const sent = new Map<string, number>();
  const readyAt = new Map<string, number>();
  const list = await client.list<Claim>(SANDBOX_CLAIMS, ns);
  const abort = new AbortController();
  // Re-watched from the last resourceVersion seen whenever the server ends the stream.
  const watching = (async () => {
    let rv = list.metadata.resourceVersion ?? '0';
    while (!abort.signal.aborted) {
      try {
        for await (const ev of client.watch<Claim>(SANDBOX_CLAIMS, ns, {
          resourceVersion: rv,
          signal: abort.signal,
        })) {
          if (ev.type === 'BOOKMARK') continue;
          const obj = ev.object as Claim;
          rv = obj.metadata.resourceVersion ?? rv;
          const name = obj.metadata.name ?? '';
          if (!readyAt.has(name) && isReady(obj)) readyAt.set(name, performance.now());
        }
      } catch {
        await sleep(100);
      }
    }
  })();
  const start = performance.now();
  const creates: Promise<unknown>[] = [];
  for (let i = 0; i < w.count; i++) {
    const due = start + (i * 1000) / w.rate;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    const name = `${w.prefix}-${String(i).padStart(5, '0')}`;
    sent.set(name, performance.now());
    creates.push(
      client.create(SANDBOX_CLAIMS, {
        apiVersion: GROUP,
        kind: 'SandboxClaim',
        metadata: {
          name,
          namespace: ns,
          ...(w.labels !== undefined ? { labels: w.labels } : {}),
          annotations: { 'agents.x-k8s.io/client-first-requested-at': new Date().toISOString() },
        },
        spec: { warmPoolRef: { name: 'bench' } },
      } as KubeObject),
    );
  }
  await Promise.all(creates);
  const achievedRate = Math.round((w.count / ((performance.now() - start) / 1000)) * 10) / 10;
  const done = (): boolean => [...sent.keys()].every((n) => readyAt.has(n));
  const within = w.readyWithinMs ?? 10 * 60_000;
  while (!done() && performance.now() - start < within) await sleep(200);
  abort.abort();
  await watching;
  return { sent, readyAt, start, achievedRate };
}

/** Waits for the pool to be Ready at its size again; the manager's writes since the claims began. */
async function refillWrites(
  target: ClaimsTarget,
  controller: { metrics(): Promise<string> },
  at: { ns: string; o: RunOptions; w0: Map<string, number>; phaseFrom: number; start: number },
): Promise<RefillResult> {
  await waitPoolReady(target.client, at.ns, at.o.pool);
  const seconds = Math.round((performance.now() - at.start) / 100) / 10;
  const refilledAt = Date.now();
  const perClaim = (n: number): number => Math.round((n / at.o.claims) * 100) / 100;
  const manager =
    target.auditLog === undefined
      ? undefined
      : readAuditWrites(target.auditLog, at.phaseFrom, refilledAt)['agent-sandbox'];
  return {
    seconds,
    apiWritesPerClaim: perClaim(total(writes(await controller.metrics())) - total(at.w0)),
    ...(manager !== undefined
      ? {
          byResource: Object.fromEntries(Object.entries(manager).map(([k, v]) => [k, perClaim(v)])),
        }
      : {}),
  };
}

async function waitPoolReady(client: KubeClient, ns: string, size: number): Promise<void> {
  const start = performance.now();
  for (;;) {
    const pool = await client.get<KubeObject & { status?: { readyReplicas?: number } }>(
      SANDBOX_WARM_POOLS,
      ns,
      'bench',
    );
    if ((pool.status?.readyReplicas ?? 0) >= size) return;
    if (performance.now() - start > 20 * 60_000)
      throw new Error('the pool did not get Ready in 20 min');
    await sleep(1_000);
  }
}

/**
 * The rate-stepping phase (the search in steps.ts): with the pool refilled before each step,
 * `rate × seconds` claims at `rate`/s; the step holds when every claim is Ready, the client-watch
 * p99 stays within 500 ms and the creates kept up (≥ 90 % of the rate). A step waits for its
 * claims' Ready at most a minute past its last create (a broken step need not drain), and its
 * claims are deleted before the next (their Sandboxes go with them).
 */
async function stepRates(
  client: KubeClient,
  ns: string,
  o: RunOptions,
  name: string,
): Promise<StepResult[]> {
  const s = o.steps;
  if (s === undefined) return [];
  const out: StepResult[] = [];
  const phaseStart = performance.now();
  await deleteClaims(client, ns);
  for (let rate = nextStepRate(out, s), i = 0; rate !== undefined; rate = nextStepRate(out, s)) {
    if (performance.now() - phaseStart > s.budgetSeconds * 1000) {
      o.log(`${name}: step budget of ${s.budgetSeconds} s spent before ${rate}/s`);
      break;
    }
    await waitPoolReady(client, ns, o.pool);
    const count = Math.max(1, Math.min(o.pool, Math.round(rate * s.seconds)));
    const label = { 'bench.agent-sandbox.dev/step': String(i) };
    const wave = await claimWave(client, ns, {
      rate,
      count,
      prefix: `s${i}`,
      labels: label,
      readyWithinMs: (count * 1000) / rate + 60_000,
    });
    const ms = [...wave.sent].flatMap(([n, at]) => {
      const r = wave.readyAt.get(n);
      return r === undefined ? [] : [r - at];
    });
    const client99 = percentiles(ms);
    const held =
      ms.length === count &&
      (client99?.p99 ?? Infinity) <= STEP_P99_LIMIT_MS &&
      wave.achievedRate >= 0.9 * rate;
    out.push({ rate, achievedRate: wave.achievedRate, claims: count, client: client99, held });
    o.log(
      `${name}: step ${rate}/s (${count} claims, achieved ${wave.achievedRate}/s): ` +
        `p50/p90/p99 ${client99?.p50}/${client99?.p90}/${client99?.p99} ms — ${held ? 'held' : 'broke'}`,
    );
    await deleteClaims(client, ns, `bench.agent-sandbox.dev/step=${i}`);
    i++;
  }
  return out;
}

/** Deletes the claims (of `selector`), 50 at a time; their Sandboxes go through owner GC. */
async function deleteClaims(client: KubeClient, ns: string, selector?: string): Promise<void> {
  const list = await client.list<Claim>(SANDBOX_CLAIMS, ns, {
    ...(selector !== undefined ? { labelSelector: selector } : {}),
  });
  const names = list.items.map((c) => c.metadata.name ?? '');
  for (let i = 0; i < names.length; i += 50) {
    await Promise.all(
      names
        .slice(i, i + 50)
        .map((n) => client.delete(SANDBOX_CLAIMS, ns, n).catch(() => undefined)),
    );
  }
}
