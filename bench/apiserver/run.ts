// Benchmark: the embedded API server against the real kube-apiserver, in the same run, through
// the same client, on loopback. Prints throughput, latency and server-CPU tables with ratios
// (embedded / kube), writes bench/results/apiserver-<timestamp>.json and a ratio chart (.svg).
//
//   npx tsx bench/apiserver/run.ts [--quick] [--targets kube,mem,file,file-tls,file-normal,file-each] [--shared-cluster]
//   (targets: kube, mem, file, file-tls, file-normal, file-each; kube is required, as the baseline)
//   [--workloads writes,lists,watch]   a subset of the workloads (lists need the writes' data)
//
// Workloads run interleaved (each workload on every target in turn) so a change in background
// load hits all targets alike. See bench/README.md for how to read the output.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { cpuTable, latencyTable, ratioChart, throughputTable, type Report } from './report.ts';
import { mergeRounds, type Result } from './stats.ts';
import {
  cpuSeconds,
  rssMb,
  startTarget,
  TARGET_DESCRIPTIONS,
  TARGET_KEYS,
  type BenchTarget,
  type TargetKey,
} from './targets.ts';
import {
  createNamespace,
  createWorkload,
  DEFAULT,
  deleteNamespace,
  fanoutWorkload,
  KINDS,
  listWorkload,
  QUICK,
  updateWorkload,
  type Dataset,
} from './workloads.ts';

const WORKLOAD_KEYS = ['writes', 'lists', 'watch'] as const;
const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    targets: { type: 'string', default: TARGET_KEYS.join(',') },
    'shared-cluster': { type: 'boolean', default: false },
    workloads: { type: 'string', default: WORKLOAD_KEYS.join(',') },
  },
});
const workloads = new Set(values.workloads.split(',').map((w) => w.trim()));
for (const w of workloads)
  if (!(WORKLOAD_KEYS as readonly string[]).includes(w))
    throw new Error(`--workloads: unknown workload ${w}; use ${WORKLOAD_KEYS.join(', ')}`);
if (workloads.has('lists') && !workloads.has('writes'))
  throw new Error('--workloads: lists reads the objects the writes create; add writes');
const sizes = values.quick ? QUICK : DEFAULT;
const keys = values.targets.split(',').map((k) => k.trim()) as TargetKey[];
for (const k of keys)
  if (!(TARGET_KEYS as readonly string[]).includes(k))
    throw new Error(`--targets: unknown target ${k}; use ${TARGET_KEYS.join(', ')}`);
if (!keys.includes('kube')) throw new Error('--targets must include kube (the baseline)');

// Every phase is bounded; this is the backstop for a server that stops answering.
const RUN_LIMIT_MS = (values.quick ? 3 : 20) * 60_000;
const watchdog = setTimeout(() => {
  console.error(`bench: gave up after ${RUN_LIMIT_MS / 60_000} min`);
  void cleanup().finally(() => process.exit(2));
}, RUN_LIMIT_MS);
watchdog.unref();
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    console.error(`bench: ${signal}, stopping the servers`);
    void cleanup().finally(() => process.exit(130));
  });

const startedAt = new Date();
const runId = startedAt.getTime().toString(36);
const log = (msg: string): void =>
  console.error(`[${(performance.now() / 1000).toFixed(1)}s] ${msg}`);
const loadBefore = loadavg();

const targets: BenchTarget[] = [];
const namespaces = new Map<BenchTarget, string[]>();
const results: Result[] = [];

async function namespace(t: BenchTarget, suffix: string): Promise<string> {
  const name = `bench-${runId}-${t.key}-${suffix}`;
  await createNamespace(t.client, name);
  namespaces.get(t)!.push(name);
  return name;
}

let cleaning: Promise<void> | undefined;
/** Deletes our namespaces and stops every server this run started; once. */
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    for (const t of targets) {
      for (const ns of namespaces.get(t) ?? []) await deleteNamespace(t.client, ns);
      await t.stop().catch((err: unknown) => log(`stop ${t.key}: ${String(err)}`));
    }
  })();
  return cleaning;
}

/**
 * Runs one workload on every target in turn, `rounds` times (each round starts with the next
 * target), and records the merged result with the server CPU per op where readable. A target that
 * fails (e.g. its server went away) is logged and skipped; the others carry on.
 */
async function step(
  name: string,
  run: (t: BenchTarget, round: number) => Promise<Result>,
  rounds = 1,
): Promise<void> {
  const perTarget = new Map<BenchTarget, { results: Result[]; cpu: number | undefined }>();
  for (let round = 0; round < rounds; round++) {
    const order = targets.map((_, i) => targets[(i + round) % targets.length]!);
    for (const t of order) {
      const cpu0 = cpuSeconds(t.pids);
      let r: Result;
      try {
        r = await run(t, round);
      } catch (err) {
        log(`${name} ${t.key}: failed: ${String(err)}`);
        continue;
      }
      const cpu1 = cpuSeconds(t.pids);
      const entry = perTarget.get(t) ?? { results: [], cpu: 0 };
      entry.results.push(r);
      entry.cpu =
        entry.cpu !== undefined && cpu0 !== undefined && cpu1 !== undefined
          ? entry.cpu + cpu1 - cpu0
          : undefined;
      perTarget.set(t, entry);
      const err = r.errors > 0 ? ` errors=${r.errors} (${r.firstError})` : '';
      log(
        `${name}${rounds > 1 ? ` round ${round + 1}/${rounds}` : ''} ${t.key}: ${r.ops}/${r.planned} in ${r.seconds}s, ${r.throughput} ${r.unit}, p50 ${r.latencyMs?.p50} ms${err}`,
      );
    }
  }
  for (const t of targets) {
    const entry = perTarget.get(t);
    if (entry) results.push(mergeRounds(entry.results, entry.cpu));
  }
}

try {
  for (const key of keys) {
    log(`starting ${key}`);
    const t = await startTarget(key, { sharedCluster: values['shared-cluster'], log });
    targets.push(t);
    namespaces.set(t, []);
  }
  // kube first: the baseline column.
  targets.sort((a, b) => keys.indexOf(a.key) - keys.indexOf(b.key));

  const datasets = new Map<BenchTarget, Dataset>();
  for (const t of targets) {
    // Warm-up, not recorded: JIT, connection pools, caches, CRD schema compilation.
    const warm: Dataset = {
      client: t.client,
      namespace: await namespace(t, 'warm'),
      objects: { configmaps: [], sandboxes: [] },
    };
    const warmSizes = { ...sizes, n: sizes.warmup };
    for (const kind of KINDS) {
      await createWorkload(warm, kind, 8, warmSizes);
      await updateWorkload(warm, kind, 8, warmSizes);
      await listWorkload(warm, kind, false, { ...warmSizes, listRepeats: 2 });
    }
    await fanoutWorkload(t.client, await namespace(t, 'warm-watch'), 2, {
      ...sizes,
      writes: 20,
    });
    datasets.set(t, {
      client: t.client,
      namespace: await namespace(t, 'data'),
      objects: { configmaps: [], sandboxes: [] },
    });
  }
  log('warm-up done');

  for (const c of workloads.has('writes') ? sizes.concurrency : [])
    for (const kind of KINDS) {
      await step(
        `create ${kind} c=${c}`,
        (t, round) => createWorkload(datasets.get(t)!, kind, c, sizes, round),
        sizes.rounds,
      );
      await step(
        `update ${kind} c=${c}`,
        (t, round) => updateWorkload(datasets.get(t)!, kind, c, sizes, round),
        sizes.rounds,
      );
    }
  for (const kind of workloads.has('lists') ? KINDS : [])
    for (const paged of [false, true])
      await step(`list ${kind}${paged ? ' paged' : ''}`, (t) =>
        listWorkload(datasets.get(t)!, kind, paged, sizes),
      );
  for (const w of workloads.has('watch') ? sizes.watchers : [])
    await step(`watch w=${w}`, async (t) =>
      fanoutWorkload(t.client, await namespace(t, `w${w}`), w, sizes),
    );

  const rss: Record<string, number | undefined> = {};
  for (const t of targets) rss[t.key] = t.key === 'mem' ? undefined : rssMb(t.pids);

  const report: Report = { baseline: 'kube', targets: targets.map((t) => t.key), results };
  const tables = [
    `Throughput (higher is better; ${keys
      .filter((k) => k !== 'kube')
      .map((k) => `${k}/kube`)
      .join(', ')} > 1 means the embedded server is faster)`,
    throughputTable(report),
    '',
    'Latency per operation, ms (lower is better; ratios < 1 mean the embedded server is faster)',
    latencyTable(report),
    '',
    'Server CPU per operation (kube = kube-apiserver + etcd; mem shares the client process, so it is not measured)',
    cpuTable(report),
    '',
    `RSS after the run, MB: ${targets
      .filter((t) => rss[t.key] !== undefined)
      .map((t) => `${t.key} ${rss[t.key]}`)
      .join(', ')} (kube = kube-apiserver + etcd; mem is not separable from the client)`,
    '* = stopped at the phase time bound; ! = some operations failed (see the JSON)',
  ].join('\n');

  const loadAfter = loadavg();
  const dir = fileURLToPath(new URL('../results/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  const stamp = startedAt.toISOString().replace(/[:.]/g, '-');
  const jsonPath = `${dir}apiserver-${stamp}.json`;
  const svgPath = `${dir}apiserver-${stamp}.svg`;
  writeFileSync(
    jsonPath,
    JSON.stringify(
      {
        benchmark: 'apiserver',
        startedAt: startedAt.toISOString(),
        finishedAt: new Date().toISOString(),
        quick: values.quick,
        workloads: [...workloads],
        sizes,
        machine: {
          cpus: cpus().length,
          cpuModel: cpus()[0]?.model,
          node: process.version,
          loadavgBefore: loadBefore,
          loadavgAfter: loadAfter,
        },
        targets: Object.fromEntries(targets.map((t) => [t.key, TARGET_DESCRIPTIONS[t.key]])),
        rssMb: rss,
        results,
      },
      null,
      2,
    ) + '\n',
  );
  writeFileSync(svgPath, ratioChart(report));

  console.log(
    `\napiserver benchmark, ${values.quick ? 'quick' : 'default'} sizes: n=${sizes.n} per kind and concurrency, ` +
      `watchers ${sizes.watchers.join('/')} × ${sizes.writes} writes; ${cpus().length} CPUs, ` +
      `load average ${loadBefore[0]?.toFixed(1)} → ${loadAfter[0]?.toFixed(1)}\n`,
  );
  for (const t of targets) console.log(`  ${t.key.padEnd(8)} ${TARGET_DESCRIPTIONS[t.key]}`);
  console.log(`\n${tables}\n`);
  console.log(`wrote ${jsonPath}`);
  console.log(`wrote ${svgPath}`);
} finally {
  await cleanup();
}
