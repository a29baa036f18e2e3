// Benchmark: claim latency and throughput of our SandboxClaim path (issue 10) on upstream's
// scalability workload (perf §1.9: 100 kwok nodes, a pool of 1,050, 750 claims at 75/s), on a
// private harness cluster and on the embedded API server. Prints a table, writes
// bench/results/claims-<timestamp>.json and .png (latency per claim, log scale).
//
//   npm run bench:claims -- [--targets cluster,embedded] [--pool 1050] [--claims 750]
//       [--rate 75] [--nodes 100] [--keep-cluster] [--controller-arg=--kube-api-qps=-1 ...]
//       [--no-step] [--step-from 4] [--step-factor 2] [--step-seconds 10] [--step-max 1000]
//       [--step-refine 2] [--step-budget 540]
//
// After the main run the claim rate is stepped (pool refilled before each step; steps.ts) to the
// highest rate whose client-watch p99 stays within 500 ms; --no-step skips it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runClaims, type RunResult } from './measure.ts';
import { DEFAULT_STEPS, describeSchedule, type StepSchedule } from './steps.ts';
import { writeLatencyPng } from './plot.ts';
import { clusterTarget, embeddedTarget, type ClaimsTarget } from './target.ts';

const { values } = parseArgs({
  options: {
    targets: { type: 'string', default: 'cluster,embedded' },
    pool: { type: 'string', default: '1050' },
    claims: { type: 'string', default: '750' },
    rate: { type: 'string', default: '75' },
    nodes: { type: 'string', default: '100' },
    'keep-cluster': { type: 'boolean', default: false },
    'controller-arg': { type: 'string', multiple: true, default: [] },
    'no-step': { type: 'boolean', default: false },
    'step-from': { type: 'string', default: String(DEFAULT_STEPS.from) },
    'step-factor': { type: 'string', default: String(DEFAULT_STEPS.factor) },
    'step-seconds': { type: 'string', default: String(DEFAULT_STEPS.seconds) },
    'step-max': { type: 'string', default: String(DEFAULT_STEPS.max) },
    'step-refine': { type: 'string', default: String(DEFAULT_STEPS.refine) },
    'step-budget': { type: 'string', default: String(DEFAULT_STEPS.budgetSeconds) },
  },
});
const positive = (flag: string, v: string): number => {
  const n = Number(v);
  if (!(n > 0)) throw new Error(`--${flag}: expected a positive number, got "${v}"`);
  return n;
};
function wholeNumber(flag: string, v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0)
    throw new Error(`--${flag}: expected a whole number >= 0, got "${v}"`);
  return n;
}
const targets = values.targets.split(',').map((t) => t.trim());
for (const t of targets)
  if (t !== 'cluster' && t !== 'embedded')
    throw new Error(`--targets: unknown target "${t}"; use cluster and/or embedded`);
const started = new Date();
const resultsDir = fileURLToPath(new URL('../results/', import.meta.url));
mkdirSync(resultsDir, { recursive: true });
const base = `${resultsDir}claims-${started.toISOString().replace(/[:.]/g, '-')}`;
const log = (m: string): void => console.error(`[${new Date().toISOString().slice(11, 19)}] ${m}`);
const load0 = loadavg()[0];
const steps: StepSchedule | undefined = values['no-step']
  ? undefined
  : {
      from: positive('step-from', values['step-from']),
      factor: positive('step-factor', values['step-factor']),
      seconds: positive('step-seconds', values['step-seconds']),
      max: positive('step-max', values['step-max']),
      refine: wholeNumber('step-refine', values['step-refine']),
      budgetSeconds: positive('step-budget', values['step-budget']),
    };
if (steps !== undefined && steps.factor <= 1)
  throw new Error(`--step-factor: expected a number above 1, got "${values['step-factor']}"`);
if (steps !== undefined) log(`step schedule: ${describeSchedule(steps)}`);

const results: RunResult[] = [];
for (const name of targets) {
  let target: ClaimsTarget | undefined;
  try {
    target =
      name === 'cluster'
        ? await clusterTarget(positive('nodes', values.nodes), values['keep-cluster'])
        : await embeddedTarget();
    log(`${name}: target up`);
    results.push(
      await runClaims(target, {
        pool: positive('pool', values.pool),
        claims: positive('claims', values.claims),
        rate: positive('rate', values.rate),
        controllerArgs: values['controller-arg'],
        logDir: resultsDir,
        log,
        ...(steps !== undefined ? { steps } : {}),
      }),
    );
  } finally {
    await target?.stop().catch(() => undefined);
  }
  // Written after each target, so a long run that is cut short keeps what it measured.
  report(results);
}

/** "verb resource: writes per claim, ..." of one user agent, from the audit log. */
function perClaim(r: RunResult, agent: string): string {
  const counts = r.writesByResource?.[agent];
  if (counts === undefined) return '-';
  return Object.entries(counts)
    .map(([k, v]) => `${k} ${Math.round((v / r.claims) * 100) / 100}`)
    .join(', ');
}

function report(results: readonly RunResult[]): void {
  const f = (v: number | undefined): string =>
    v === undefined ? '-' : v === Infinity ? '>240000' : String(v);
  const rows = [
    ['', ...results.map((r) => r.target)],
    [
      'pool / claims / rate (per s)',
      ...results.map((r) => `${r.pool} / ${r.claims} / ${r.rate} (got ${r.achievedRate})`),
    ],
    ['warm / cold', ...results.map((r) => `${r.warm} / ${r.cold}`)],
    [
      'client watch p50 / p90 / p99 ms',
      ...results.map((r) => `${f(r.client?.p50)} / ${f(r.client?.p90)} / ${f(r.client?.p99)}`),
    ],
    [
      'controller p50 / p90 / p99 ms',
      ...results.map(
        (r) => `${f(r.controller?.p50)} / ${f(r.controller?.p90)} / ${f(r.controller?.p99)}`,
      ),
    ],
    [
      'histogram buckets p50 / p90 / p99 ≤ ms',
      ...results.map(
        (r) => `${f(r.histogram.p50)} / ${f(r.histogram.p90)} / ${f(r.histogram.p99)}`,
      ),
    ],
    [
      'controller API writes per claim',
      ...results.map(
        (r) =>
          `${r.apiWritesPerClaim} (${Object.entries(r.writesByVerb)
            .map(([k, v]) => `${k} ${v}`)
            .join(', ')})`,
      ),
    ],
    [
      'manager writes per claim by resource (audit log)',
      ...results.map((r) => perClaim(r, 'agent-sandbox')),
    ],
    [
      'until the pool is refilled: s / manager writes per claim (pool status)',
      ...results.map(
        (r) =>
          `${r.refill.seconds} / ${r.refill.apiWritesPerClaim} (${f(r.refill.byResource?.['patch sandboxwarmpools/status'])})`,
      ),
    ],
    [
      'kubelet writes per claim (audit log)',
      ...results.map((r) => perClaim(r, 'scripted-kubelet')),
    ],
    [
      'controller CPU s / peak RSS MB',
      ...results.map((r) => `${r.controllerCpuSeconds} / ${f(r.controllerPeakRssMb)}`),
    ],
    [
      'API server CPU s (claim phase)',
      ...results.map((r) =>
        Object.entries(r.apiserverCpuSeconds)
          .map(([k, v]) => `${k} ${v}`)
          .join(', '),
      ),
    ],
    ['API server raw write rate /s', ...results.map((r) => String(r.rawWritesPerSecond))],
    ['pool Ready after s', ...results.map((r) => String(r.poolReadySeconds))],
    [
      'rate steps (asked/s: p99 ms)',
      ...results.map(
        (r) =>
          r.steps.map((x) => `${x.rate}: ${f(x.client?.p99)}${x.held ? '' : ' ✘'}`).join(', ') ||
          '-',
      ),
    ],
    [
      'step phase s',
      ...results.map((r) => (r.stepPhaseSeconds === undefined ? '-' : String(r.stepPhaseSeconds))),
    ],
    [
      'highest sustained claim rate /s (p99 ≤ 500 ms)',
      ...results.map((r) =>
        r.steps.length === 0
          ? '-'
          : r.highestSustainedRate === undefined
            ? 'none'
            : String(r.highestSustainedRate),
      ),
    ],
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  const table = rows.map((r) => r.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ')).join('\n');
  const schedule = steps === undefined ? 'no rate steps' : `rate steps ${describeSchedule(steps)}`;
  console.log(
    `claims benchmark, ${cpus().length} CPUs, load average ${load0?.toFixed(1)} → ${loadavg()[0]?.toFixed(1)}; ${schedule}\n${table}`,
  );
  writeFileSync(
    `${base}.json`,
    JSON.stringify(
      { started: started.toISOString(), cpus: cpus().length, steps: steps ?? null, results },
      null,
      2,
    ),
  );
  writeLatencyPng(
    `${base}.png`,
    results.map((r) => ({ title: r.target, points: r.points })),
  );
  console.log(`wrote ${base}.json and ${base}.png`);
}
