// Benchmark: our Sandbox controller on a private harness cluster with kwok nodes. In one run:
//   1. raw: N Sandboxes created with no controller running (kube-apiserver's own create rate at
//      the same number of requests in flight), then deleted;
//   2. controller: our manager (`agent-sandbox controller`) as a child process, N Sandboxes
//      created, time until every one is Ready, reconciles and API writes per Sandbox, CPU of the
//      controller and of each control-plane process, the controller's peak RSS.
// Prints a table with ratios, writes bench/results/controller-<N>-<timestamp>.json and .svg.
//
//   npm run bench:controller -- --sandboxes 1000 [--concurrency 100] [--nodes K]
//       [--keep-cluster] [--timeout-min M] [--controller-arg=--kube-api-qps=1000 ...]
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  apiserverMetrics,
  createNamespace,
  nodesFor,
  startCluster,
  type BenchCluster,
} from './cluster.ts';
import { startController, type ControllerProcess } from './controller-process.ts';
import { watcherFor, type Watcher } from './watch.ts';
import { phaseCost, reconcileProgress, snapshot, type Snapshot } from './measure.ts';
import { memoryMbOf } from './proc.ts';
import { readyChart, renderReport, type ControllerResult } from './report.ts';
import {
  POD_STAGES,
  SANDBOX_STAGES,
  StageTracker,
  stageLatencies,
  round,
  runRequests,
  sandboxesPath,
  sandboxName,
  sandboxObject,
  waitEmpty,
} from './workload.ts';
import { countEvents, countReady } from './counts.ts';

const { values } = parseArgs({
  options: {
    sandboxes: { type: 'string', default: '1000' },
    concurrency: { type: 'string', default: '100' },
    nodes: { type: 'string' },
    'keep-cluster': { type: 'boolean', default: false },
    'timeout-min': { type: 'string' },
    'controller-arg': { type: 'string', multiple: true, default: [] },
  },
});
const positive = (flag: string, v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0)
    throw new Error(`--${flag}: expected a positive integer, got "${v}"`);
  return n;
};
const N = positive('sandboxes', values.sandboxes);
const C = positive('concurrency', values.concurrency);
const nodes = values.nodes ? positive('nodes', values.nodes) : nodesFor(N);
// Ready wait bound: generous (5 Sandboxes/s; a busy 2-core machine managed about 10), ≥ 5 min.
const readyTimeoutMs =
  positive('timeout-min', values['timeout-min'] ?? String(Math.max(5, Math.ceil(N / 300)))) *
  60_000;

const STALL_MS = 180_000;
const log = (msg: string): void =>
  console.error(`[${(performance.now() / 1000).toFixed(1)}s] ${msg}`);
const startedAt = new Date();
const runId = startedAt.getTime().toString(36);
const resultsDir = fileURLToPath(new URL('../results/', import.meta.url));
const stamp = startedAt.toISOString().replace(/[:.]/g, '-');
const base = `${resultsDir}controller-${N}-${stamp}`;

let cluster: BenchCluster | undefined;
let controller: ControllerProcess | undefined;
let watcher: Watcher | undefined;
async function cleanup(): Promise<void> {
  watcher?.destroy();
  await controller?.stop().catch(() => undefined);
  await cluster?.stop().catch((err: unknown) => log(`cluster stop failed: ${String(err)}`));
}
// Every wait below is bounded; this is the backstop for a server that stops answering.
const watchdog = setTimeout(
  () => {
    console.error('bench: gave up (run limit)');
    void cleanup().finally(() => process.exit(2));
  },
  readyTimeoutMs + 20 * 60_000,
);
watchdog.unref();
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    console.error(`bench: ${signal}, stopping the controller and the cluster`);
    void cleanup().finally(() => process.exit(130));
  });

const loadBefore = loadavg();
try {
  mkdirSync(resultsDir, { recursive: true });
  log(
    `cluster: ${nodes} kwok nodes (${process.env.AGENT_SANDBOX_CLUSTER_STATE ?? '/tmp/bench-ctl-state'})`,
  );
  cluster = await startCluster(N, nodes, values['keep-cluster']);
  const { client, pids } = cluster;
  const apiSnap = async (ctl?: ControllerProcess): Promise<Snapshot> =>
    snapshot(
      await apiserverMetrics(client),
      ctl ? await ctl.metrics() : '',
      ctl ? { ...pids, controller: ctl.pid } : pids,
    );

  // Phase 1: kube-apiserver alone.
  const rawNs = `bench-${runId}-raw`;
  await createNamespace(client, rawNs);
  log(`raw: creating ${N} Sandboxes in ${rawNs}, ${C} in flight, no controller`);
  const rawBefore = await apiSnap();
  const rawCreate = await runRequests(N, C, [201], (i) =>
    client.request('POST', sandboxesPath(rawNs), sandboxObject(sandboxName(i))),
  );
  const rawCost = phaseCost(rawBefore, await apiSnap(), false);
  log(`raw: ${rawCreate.perSecond} creates/s, ${rawCreate.errors} errors; deleting`);
  const rawDelete = await runRequests(N, C, [200, 202, 404], (i) =>
    client.request('DELETE', `${sandboxesPath(rawNs)}/${sandboxName(i)}`),
  );
  await waitEmpty(client, rawNs, 120_000);
  await client.request('DELETE', `/api/v1/namespaces/${rawNs}`);
  log(`raw: ${rawDelete.perSecond} deletes/s; namespace emptied`);

  // Phase 2: our controller.
  const ctlNs = `bench-${runId}-ctl`;
  await createNamespace(client, ctlNs);
  controller = await startController(
    cluster.kubeconfig,
    `${base}.controller.log`,
    values['controller-arg'],
  );
  log(`controller: pid ${controller.pid}, metrics ${controller.metricsUrl}`);
  watcher = watcherFor(cluster.kubeconfig);
  const tracker = new StageTracker(client, watcher, sandboxesPath(ctlNs), SANDBOX_STAGES, log);
  const podsPath = `/api/v1/namespaces/${ctlNs}/pods`;
  const pods = new StageTracker(client, watcher, podsPath, POD_STAGES, log);
  await Promise.all([tracker.start(), pods.start()]);
  const readyAt = tracker.at.ready;
  const before = await apiSnap(controller);
  const t0 = performance.now();
  const timeline: ControllerResult['timeline'] = [];
  let created = 0;
  const sampler = setInterval(() => {
    const rss = memoryMbOf(controller!.pid, 'VmRSS');
    timeline.push({
      t: round((performance.now() - t0) / 1000, 2),
      created,
      ready: readyAt.size,
      podsCreated: pods.at.created.size,
      podsBound: pods.at.bound.size,
      podsReady: pods.at.ready.size,
      ...(rss !== undefined ? { rssMb: rss } : {}),
    });
  }, 500);
  log(`controller: creating ${N} Sandboxes in ${ctlNs}, ${C} in flight`);
  const create = await runRequests(N, C, [201], async (i) => {
    const res = await client.request('POST', sandboxesPath(ctlNs), sandboxObject(sandboxName(i)));
    if (res.status === 201) created++;
    return res;
  });
  log(`controller: created ${create.ops} in ${create.seconds} s; waiting for Ready`);
  const deadline = t0 + readyTimeoutMs;
  // Stop early when Ready stops advancing for 3 min: e.g. kube-controller-manager marked Pods
  // NotReady while their kwok node's lease lapsed, and kwok never flips them back.
  let stall = { at: performance.now(), ready: 0 };
  while (readyAt.size < create.ops && performance.now() < deadline) {
    await new Promise((r) => setTimeout(r, 1000));
    if (readyAt.size > stall.ready) stall = { at: performance.now(), ready: readyAt.size };
    else if (performance.now() - stall.at > STALL_MS) {
      log(`controller: no new Ready for ${STALL_MS / 1000} s; giving up the wait`);
      break;
    }
    if (Math.round((performance.now() - t0) / 1000) % 10 === 0)
      log(`controller: ${readyAt.size}/${create.ops} Ready`);
  }
  const allReady = readyAt.size >= create.ops;
  const readyTimes = [...readyAt.values()];
  const lastReady = readyTimes.length ? Math.max(...readyTimes) : NaN;
  log(`controller: ${readyAt.size}/${create.ops} Ready; settling`);
  // Count the writes that follow the last Ready too: wait until reconciles stop (≤ 60 s).
  let prev = -1;
  let quiet = 0;
  for (let i = 0; i < 60 && quiet < 3; i++) {
    const p = reconcileProgress(await controller.metrics());
    quiet = p.total === prev && p.depth === 0 ? quiet + 1 : 0;
    prev = p.total;
    await new Promise((r) => setTimeout(r, 1000));
  }
  const after = await apiSnap(controller);
  clearInterval(sampler);
  tracker.stop();
  pods.stop();
  const cost = phaseCost(before, after, true);
  const [readyAtEnd, nodeNotReadyEvents] = await Promise.all([
    countReady(client, sandboxesPath(ctlNs)),
    countEvents(client, 'NodeNotReady'),
  ]);
  const sent = new Map<string, number>();
  create.sentAt.forEach((t, i) => t !== undefined && sent.set(sandboxName(i), t));
  const stages = stageLatencies([
    ['', sent],
    ['create sent → Pod created (controller)', pods.at.created],
    ['Pod created → bound (kube-scheduler)', pods.at.bound],
    ['Pod bound → Pod Ready (kwok)', pods.at.ready],
    ['Pod Ready → Sandbox Ready (controller)', readyAt],
  ]);
  const timeToAllReady = round((lastReady - t0) / 1000, 2);
  const result: ControllerResult = {
    sandboxes: N,
    concurrency: C,
    nodes: cluster.nodes,
    startedAt: startedAt.toISOString(),
    cpus: cpus().length,
    loadAverage: {
      before: loadBefore.map((x) => round(x, 2)),
      after: loadavg().map((x) => round(x, 2)),
    },
    controllerArgs: controller.args.filter((a) => !a.startsWith('--kubeconfig')),
    raw: {
      create: { ...rawCreate, sentAt: [] },
      delete: { ...rawDelete, sentAt: [] },
      cost: rawCost,
    },
    controller: {
      create: { ...create, sentAt: [] },
      allReady,
      ready: readyAt.size,
      readyAtEnd,
      nodeNotReadyEvents,
      timeToAllReadySeconds: allReady ? timeToAllReady : undefined,
      readyPerSecond: allReady ? round(create.ops / timeToAllReady, 1) : undefined,
      createToReadyMs: stageLatencies([
        ['', sent],
        ['', readyAt],
      ])[''],
      stageMs: stages,
      sandboxWatchEvents: tracker.events,
      watchEventTypes: tracker.eventTypes,
      watchReopens: { sandboxes: tracker.reopens, pods: pods.reopens },
      watchRelists: { sandboxes: tracker.relists, pods: pods.relists },
      podWatchEvents: pods.events,
      cost,
      peakRssMb: memoryMbOf(controller.pid, 'VmHWM'),
      endRssMb: memoryMbOf(controller.pid, 'VmRSS'),
    },
    timeline,
  };
  await controller.stop();
  controller = undefined;
  // Pods hold node slots: a kept cluster must not carry this run's Sandboxes into the next.
  if (values['keep-cluster']) await client.request('DELETE', `/api/v1/namespaces/${ctlNs}`);
  writeFileSync(`${base}.json`, `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(`${base}.svg`, readyChart(result));
  console.log(renderReport(result));
  console.log(`\nJSON: ${base}.json\nchart: ${base}.svg\ncontroller log: ${base}.controller.log`);
  if (!allReady) process.exitCode = 1;
} finally {
  await cleanup();
  clearTimeout(watchdog);
}
