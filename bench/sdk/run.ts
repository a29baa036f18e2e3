// Benchmark: what a user of @agent-sandbox/sdk waits for (issue 13) — a warm `Sandbox.create()`
// from a pool to the first output of a command, and a cold create from a template (no pool) to
// its first output, against a real `agent-sandbox up` (its own process, data dir and bridge),
// beside the node agent's spawn floor measured in the same run: a bare `runc run` of the same
// image's root. Prints a table and the ratios, writes bench/results/sdk-<timestamp>.json and .png.
//
//   npm run bench:sdk -- [--claims 30] [--cold 5] [--pool 3] [--diagnose] [--ab-sdk DIR]
//
// --ab-sdk DIR: the warm and the cold rounds alternate (A B B A) between this tree's SDK and DIR's
// (DIR/packages/sdk/src, its own imports resolved from DIR/node_modules: a copy of another
// commit's packages/sdk beside a link to this tree's node_modules changes the SDK alone), in
// one process against one `up`; rows and the cold timeline are printed per arm.
//
// --diagnose: `up` runs under --cpu-prof and its audit log and output are kept beside the JSON,
// which then holds each warm round's start on the monotonic clock; `npx tsx bench/sdk/diagnose.ts
// <json>` says per round what up's event loop ran and which writes it served around the claim.
//
// A failed round keeps up's data dir (up.log, daemons.txt, and network.txt: the node's network
// state around the Pod at the failure, bench/sdk/capture.ts) and the run exits 1.
import { ImageStore, loadOciLayout } from '@agent-sandbox/kubelet';
import { buildTestImage } from '@agent-sandbox/kubelet/testing';
import { startUp, stopUp, upLeaks, upNetwork } from '@agent-sandbox/local/testing';
import { Annotations } from '@agent-sandbox/api';
import { SANDBOX_CLAIMS, SANDBOXES } from '@agent-sandbox/controllers';
import type { KubeClient } from '@agent-sandbox/kube';
import type { KubeObject } from '@agent-sandbox/kube-types';
import { Sandbox, type ConnectionOptions } from '@agent-sandbox/sdk';
const SDK_A: Pick<Sdk, 'Sandbox'> = { Sandbox };
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { percentiles, type Percentiles } from '../claims/stats.ts';
import { floors, timeToOutput } from '../node/floors.ts';
import { writeBarsPng } from '../node/plot.ts';
import { captureNetwork } from './capture.ts';
import { applyBenchPool, untilPoolReady } from './pool.ts';
import {
  COLD_POINTS,
  coldTimelineOf,
  jsonLines,
  type AuditLine,
  type ColdRound,
  type UpLogLine,
} from './cold-timeline.ts';
import { watchMilestones } from './milestones.ts';
import { POINTS, timelineOf, type Timeline } from './timeline.ts';

const { values } = parseArgs({
  options: {
    claims: { type: 'string', default: '30' },
    cold: { type: 'string', default: '5' },
    pool: { type: 'string', default: '3' },
    diagnose: { type: 'boolean', default: false },
    'ab-sdk': { type: 'string' },
  },
});
const positive = (flag: string, v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0)
    throw new Error(`--${flag}: expected a positive whole number, got "${v}"`);
  return n;
};
const claims = positive('claims', values.claims);
const coldRounds = positive('cold', values.cold);
const poolSize = positive('pool', values.pool);
type Sdk = typeof import('@agent-sandbox/sdk');
const sdkB = values['ab-sdk']
  ? ((await import(
      pathToFileURL(join(resolve(values['ab-sdk']), 'packages/sdk/src/index.ts')).href
    )) as Sdk)
  : undefined;
const log = (m: string): void => console.error(`[${new Date().toISOString().slice(11, 19)}] ${m}`);
const IMAGE = 'localhost/bench/busybox:v1';
const POOL = 'bench';
const load0 = loadavg()[0] ?? NaN;
const resultsDir = fileURLToPath(new URL('../results/', import.meta.url));
mkdirSync(resultsDir, { recursive: true });
const base = `${resultsDir}sdk-${new Date().toISOString().replace(/[:.]/g, '-')}`;

/** One create → first output, split where the SDK's calls split. */
interface Sample {
  /** Sandbox.create() resolved (claim written, Ready seen). */
  createMs: number;
  /** → the command's first stdout chunk (Pod IP read, gRPC connect, Start, spawn). */
  firstOutputMs: number;
  /** A second command on the same handle: Start → first output on a connected channel. */
  againMs: number;
  timeline: Timeline;
  /** The claim's name (a cold Sandbox and its Pod are named after it), if a claim was made. */
  claimName: string | undefined;
  /** When create() was called: epoch ms, and µs on the monotonic clock (a CPU profile's). */
  startedAt: { epochMs: number; monoUs: number };
}

/** The SDK's spans of the current round (reset before each). */
const spans = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({
  spanProcessors: [new SimpleSpanProcessor(spans)],
});

async function createToOutput(
  conn: ConnectionOptions,
  source: object,
  kube: KubeClient,
  seen: ReturnType<typeof watchMilestones>,
  sdk: Pick<Sdk, 'Sandbox'>,
): Promise<Sample> {
  spans.reset();
  const startedAt = { epochMs: Date.now(), monoUs: Number(process.hrtime.bigint() / 1000n) };
  const t0 = performance.now();
  const sandbox = await sdk.Sandbox.create({ ...conn, tracerProvider, ...source });
  try {
    const createMs = performance.now() - t0;
    const firstOutputMs = await untilOutput(sandbox).catch(captureFor(kube, sandbox.sandboxName));
    const t1 = performance.now();
    const roundSpans = [...spans.getFinishedSpans()];
    await untilOutput(sandbox).catch(captureFor(kube, sandbox.sandboxName));
    const againMs = performance.now() - t1;
    // Untimed: the annotations the controller stamped on the claim.
    const claim = sandbox.claimName ? await stampedClaim(kube, sandbox.claimName) : undefined;
    const timeline = timelineOf(
      roundSpans,
      claim?.metadata.annotations ?? {},
      seen.sandboxes.get(sandbox.sandboxName)?.['adoption patch seen'],
    );
    const { claimName } = sandbox;
    return { createMs, firstOutputMs: firstOutputMs - t0, againMs, timeline, claimName, startedAt };
  } finally {
    // close() even when kill() fails: an open handle would keep the run alive after its report.
    await sandbox.kill().finally(() => sandbox.close());
  }
}

/** The network state of a failed round's Pod, captured while it still runs (kept with up's data dir). */
const captures: string[] = [];
function captureFor(kube: KubeClient, sandboxName: string): (err: unknown) => Promise<never> {
  return async (err) => {
    const sandbox = await kube
      .get<KubeObject>(SANDBOXES, 'default', sandboxName)
      .catch(() => undefined);
    const ips = (sandbox as { status?: { podIPs?: string[] } } | undefined)?.status?.podIPs ?? [];
    const at = new Date().toISOString();
    const message = err instanceof Error ? err.message : String(err);
    captures.push(`# ${at} ${sandboxName}: ${message}`);
    for (const ip of ips) captures.push(await captureNetwork(ip));
    throw err;
  };
}

/** The claim once the controller's trailing claim-first-ready-at write is in (at most 2 s). */
async function stampedClaim(kube: KubeClient, name: string): Promise<KubeObject> {
  const end = Date.now() + 2000;
  for (;;) {
    const claim = await kube.get<KubeObject>(SANDBOX_CLAIMS, 'default', name);
    if (claim.metadata.annotations?.[Annotations.ClaimFirstReadyAt] || Date.now() > end)
      return claim;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Runs `echo hi`; resolves with the time its output arrived (the exit may come later). */
async function untilOutput(sandbox: Sandbox): Promise<number> {
  let at = NaN;
  const r = await sandbox.commands.run('echo hi', {
    onStdout: () => (at = Number.isNaN(at) ? performance.now() : at),
  });
  if (r.stdout !== 'hi\n') throw new Error(`echo hi printed ${JSON.stringify(r)}`);
  return at;
}

/** A failed round is counted and reported, not measured, and does not end the run. */
const failures: string[] = [];
async function sampleInto(
  out: Sample[],
  kind: string,
  round: () => Promise<Sample>,
): Promise<void> {
  try {
    out.push(await round());
  } catch (err: unknown) {
    const message = `${kind}: ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`;
    failures.push(message);
    log(`FAILED ${message}`);
  }
}

const dir = await mkdtemp(join(tmpdir(), 'asb-bench-sdk-'));
const dataDir = join(dir, 'up');
const network = upNetwork('asbk', 219);
const result: Record<string, Percentiles | undefined> = {};
let leaks: string[];

interface TimelineRow {
  point: string;
  source: string;
  /** ms after create() was called, over the rounds that saw the point. */
  at: Percentiles | undefined;
  /** ms since the nearest point above it (the table's order) that the same round saw. */
  step: Percentiles | undefined;
}
let timeline: TimelineRow[] | undefined;
let coldTimeline: Record<string, TimelineRow[]> | undefined;
let warmRounds: Pick<Sample, 'startedAt' | 'timeline'>[] | undefined;
/** Per arm (`cold`, and `cold B` under --ab-sdk): its rounds, for the cold timeline. */
const coldRoundsSeen: Record<string, ColdRound[]> = {};
let coldMilestones: ReturnType<typeof watchMilestones> | undefined;

const readOr = (path: string): string => (existsSync(path) ? readFileSync(path, 'utf8') : '');

/** Each arm's cold timeline table, from up's audit log and up.log (read once up has stopped). */
function coldTables(upDir: string): Record<string, TimelineRow[]> {
  const audit = jsonLines<AuditLine>(readOr(join(upDir, 'audit.log')));
  const upLog = jsonLines<UpLogLine>(
    readOr(join(upDir, 'up.log.1')) + readOr(join(upDir, 'up.log')),
  );
  const watched = coldMilestones ?? { pods: new Map(), sandboxes: new Map() };
  const out: Record<string, TimelineRow[]> = {};
  for (const [arm, seen] of Object.entries(coldRoundsSeen)) {
    const rounds = seen.map((r) => coldTimelineOf(r, audit, upLog, watched));
    out[arm] = timelineTable(COLD_POINTS, rounds);
  }
  return out;
}

/**
 * Per point: when it came (p50/p90 over rounds) and how long after the nearest point above it
 * that the same round saw (a source that missed a point does not lose the step below it).
 */
function timelineTable<P extends string>(
  points: readonly (readonly [P, string])[],
  rounds: readonly Partial<Record<P, number>>[],
): TimelineRow[] {
  return points.map(([point, source], i) => {
    const at = rounds.map((r) => r[point]).filter((v) => v !== undefined);
    const steps: number[] = [];
    for (const r of rounds) {
      const here = r[point];
      const before = points
        .slice(0, i)
        .map(([p]) => r[p])
        .filter((v) => v !== undefined)
        .pop();
      if (here !== undefined) steps.push(here - (before ?? 0));
    }
    return { point, source, at: percentiles(at), step: percentiles(steps) };
  });
}
// The node agent of `up` reads its images from <data dir>/node/images: load the image first.
const store = new ImageStore(join(dataDir, 'node', 'images'));
const record = await loadOciLayout(
  store,
  (await buildTestImage(join(dir, 'build'))).layoutDir,
  IMAGE,
);
const rootfs = await store.rootfs(record);
log('starting agent-sandbox up');
const up = await startUp({
  dataDir,
  network,
  timeoutMs: 180_000,
  ...(values.diagnose ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${base}-prof`] } : {}),
});
const upPid = up.child.pid;
try {
  const { kubeconfig } = up.endpoints();
  const conn: ConnectionOptions = { kubeconfig, namespace: 'default', hostEnv: {} };
  const kube = await applyBenchPool(kubeconfig, POOL, IMAGE, poolSize);
  const stopWatch = new AbortController();
  const seen = watchMilestones(kube, 'default', stopWatch.signal);
  const round =
    (source: object, sdk = SDK_A) =>
    () =>
      createToOutput(conn, source, kube, seen, sdk);
  try {
    await untilPoolReady(kube, POOL, poolSize);
    log('pool ready; floors');
    const wanted = ['runc run', 'bwrap', 'local spawn'];
    for (const f of (await floors(rootfs, dir)).filter((x) => wanted.includes(x.name))) {
      await timeToOutput(f.file, f.args, f.output); // warm the page cache
      const ms: number[] = [];
      for (let i = 0; i < 10; i++) ms.push(await timeToOutput(f.file, f.args, f.output));
      result[`floor ${f.name}`] = percentiles(ms);
    }
    // One untimed round so the SDK's and the daemon's code is loaded and compiled.
    await untilPoolReady(kube, POOL, poolSize);
    await sampleInto([], 'warm-up', round({ warmPool: POOL }));
    /** Round i's arm under --ab-sdk: A B B A. */
    const armB = (i: number): Pick<Sdk, 'Sandbox'> | undefined =>
      i % 4 === 1 || i % 4 === 2 ? sdkB : undefined;
    const warm: Sample[] = [];
    const warmB: Sample[] = [];
    for (let i = 0; i < claims; i++) {
      // Sized to keep up: each claim finds a full pool (refills are not what is measured).
      await untilPoolReady(kube, POOL, poolSize);
      const b = armB(i);
      const source = { warmPool: POOL };
      await (b
        ? sampleInto(warmB, 'warm B', round(source, b))
        : sampleInto(warm, 'warm', round(source)));
      if (i % 10 === 9) log(`warm ${i + 1}/${claims}`);
    }
    const cold: Sample[] = [];
    const coldB: Sample[] = [];
    for (let i = 0; i < coldRounds; i++) {
      const b = armB(i);
      const source = { template: POOL };
      await (b
        ? sampleInto(coldB, 'cold B', round(source, b))
        : sampleInto(cold, 'cold', round(source)));
    }
    const arms: (readonly [string, Sample[]])[] = [
      ['warm', warm],
      ['cold', cold],
      ...(sdkB
        ? ([
            ['warm B', warmB],
            ['cold B', coldB],
          ] as const)
        : []),
    ];
    for (const [name, s] of arms) {
      result[`${name} create → first output`] = percentiles(s.map((x) => x.firstOutputMs));
      result[`${name} create() → Ready`] = percentiles(s.map((x) => x.createMs));
      result[`${name} Ready → first output`] = percentiles(
        s.map((x) => x.firstOutputMs - x.createMs),
      );
      result[`${name} 2nd command → output`] = percentiles(s.map((x) => x.againMs));
    }
    timeline = timelineTable(
      POINTS,
      warm.map((s) => s.timeline),
    );
    warmRounds = warm.map((s) => ({ startedAt: s.startedAt, timeline: s.timeline }));
    for (const [arm, s] of arms.filter(([a]) => a.startsWith('cold')))
      coldRoundsSeen[arm] = s.map((x) => ({
        name: x.claimName ?? '',
        t0: x.startedAt.epochMs,
        sdk: x.timeline,
      }));
    coldMilestones = seen;
  } finally {
    stopWatch.abort();
    await kube.close();
    await tracerProvider.shutdown();
  }
} finally {
  const code = await stopUp(up);
  leaks = upLeaks(dataDir, network);
  coldTimeline = coldTables(dataDir);
  if (code !== 0) log(`up exited with ${code}`);
  if (values.diagnose) {
    copyFileSync(join(dataDir, 'audit.log'), `${base}.audit.log`);
    writeFileSync(`${base}.up.log`, up.output());
  }
  // A failed round keeps up's data dir (its up.log has every in-sandbox daemon's Start lines).
  if (failures.length === 0) await rm(dir, { recursive: true, force: true });
  else {
    writeFileSync(join(dir, 'daemons.txt'), up.daemonLog(200));
    writeFileSync(join(dir, 'network.txt'), captures.join('\n'));
    log(`kept ${dir} (up.log, daemons.txt, network.txt) for the failed rounds`);
  }
}

const p = (k: string, q: 'p50' | 'p99'): number => result[k]?.[q] ?? NaN;
const floor = p('floor runc run', 'p50');
const ratios: Record<string, number> = {
  'warm p50 / runc run floor': p('warm create → first output', 'p50') / floor,
  'warm p99 / runc run floor': p('warm create → first output', 'p99') / floor,
  'cold p50 / runc run floor': p('cold create → first output', 'p50') / floor,
};
const targets = {
  'warm p50 ≤ 50 ms': p('warm create → first output', 'p50') <= 50,
  'warm p99 ≤ 150 ms': p('warm create → first output', 'p99') <= 150,
};
const machine = { cpus: cpus().length, loadavgBefore: load0, loadavgAfter: loadavg()[0] ?? NaN };

console.log('| measurement | n | p50 ms | p90 ms | p99 ms | max ms |');
console.log('| --- | --- | --- | --- | --- | --- |');
for (const [k, v] of Object.entries(result))
  console.log(`| ${k} | ${v?.n} | ${v?.p50} | ${v?.p90} | ${v?.p99} | ${v?.max} |`);
function printTimeline(kind: string, rows: readonly TimelineRow[]): void {
  console.log(`\n${kind} timeline (ms after create() was called; step = since the row above)`);
  console.log('| point | seen by | n | at p50 | at p90 | step p50 | step p90 |');
  console.log('| --- | --- | --- | --- | --- | --- | --- |');
  for (const r of rows)
    console.log(
      `| ${r.point} | ${r.source} | ${r.at?.n ?? 0} | ${r.at?.p50 ?? '—'} | ${r.at?.p90 ?? '—'} | ${r.step?.p50 ?? '—'} | ${r.step?.p90 ?? '—'} |`,
    );
}
printTimeline('warm', timeline ?? []);
for (const [arm, rows] of Object.entries(coldTimeline ?? {})) printTimeline(arm, rows);
console.log('\n| ratio | value |\n| --- | --- |');
for (const [k, v] of Object.entries(ratios)) console.log(`| ${k} | ${v.toFixed(1)} |`);
console.log('\n| target | met |\n| --- | --- |');
for (const [k, v] of Object.entries(targets)) console.log(`| ${k} | ${v ? 'yes' : 'no'} |`);
console.log(
  `\nload average ${machine.loadavgBefore.toFixed(1)} before, ${machine.loadavgAfter.toFixed(1)} after, ${machine.cpus} cores`,
);
if (failures.length > 0) console.log(`FAILED rounds (${failures.length}):\n${failures.join('\n')}`);
if (leaks.length > 0) console.log(`LEAKED after up stopped: ${leaks.join(', ')}`);

writeFileSync(
  `${base}.json`,
  JSON.stringify(
    {
      claims,
      coldRounds,
      poolSize,
      machine,
      result,
      timeline: timeline ?? [],
      coldTimeline: coldTimeline ?? {},
      ratios,
      targets,
      failures,
      leaks,
      upPid,
      warmRounds: warmRounds ?? [],
    },
    null,
    2,
  ),
);
writeBarsPng(
  `${base}.png`,
  Object.entries(result).map(([k, v]) => ({
    group: k.startsWith('floor') ? 0 : k.startsWith('warm') ? 1 : 2,
    ms: v?.p50 ?? 0,
  })),
);
console.log(`\n${base}.json\n${base}.png`);

// A failed round or a leak fails the run. One that should be over but is still alive says what
// holds it and exits failed (a failed round once left a run that never ended).
if (failures.length > 0 || leaks.length > 0) process.exitCode = 1;
setTimeout(() => {
  log(
    `still running 10 s after the report; active: ${process.getActiveResourcesInfo().join(', ')}`,
  );
  process.exit(1);
}, 10_000).unref();
