// The printed table and the Ready-over-time chart of one run.
import type { LatencySummary } from '../apiserver/stats.ts';
import type { PhaseCost } from './measure.ts';
import type { RequestRun } from './workload.ts';

export interface ControllerResult {
  sandboxes: number;
  concurrency: number;
  nodes: number;
  startedAt: string;
  cpus: number;
  loadAverage: { before: number[]; after: number[] };
  controllerArgs: string[];
  raw: { create: RequestRun; delete: RequestRun; cost: PhaseCost };
  controller: {
    create: RequestRun;
    allReady: boolean;
    ready: number;
    /** Sandboxes Ready=True in a list after the wait (Ready can be lost after it was seen). */
    readyAtEnd: number;
    /** NodeNotReady events (nodes whose kwok lease lapsed, and Pods marked NotReady for it). */
    nodeNotReadyEvents: number;
    timeToAllReadySeconds: number | undefined;
    readyPerSecond: number | undefined;
    createToReadyMs: LatencySummary | undefined;
    sandboxWatchEvents: number;
    watchEventTypes: Record<string, number>;
    watchReopens: Record<string, number>;
    watchRelists: Record<string, number>;
    podWatchEvents: number;
    /** Per-Sandbox latency of each step of the launch, in order. */
    stageMs: Record<string, LatencySummary | undefined>;
    cost: PhaseCost;
    peakRssMb: number | undefined;
    endRssMb: number | undefined;
  };
  timeline: {
    t: number;
    created: number;
    ready: number;
    podsCreated: number;
    podsBound: number;
    podsReady: number;
    rssMb?: number;
  }[];
}

const fmt = (x: number | undefined): string =>
  x === undefined || !Number.isFinite(x)
    ? '—'
    : Math.abs(x) >= 100
      ? x.toFixed(0)
      : Math.abs(x) >= 10
        ? x.toFixed(1)
        : x.toFixed(2);
const pct = (l: LatencySummary | undefined): string =>
  l ? `${fmt(l.p50)} / ${fmt(l.p95)} / ${fmt(l.p99)}` : '—';
const ratio = (a: number | undefined, b: number | undefined): string =>
  a === undefined || b === undefined || b === 0 ? '—' : `${(a / b).toFixed(2)}×`;

function table(rows: [string, string, string?][]): string {
  const w0 = Math.max(...rows.map((r) => r[0].length), 7);
  const w1 = Math.max(...rows.map((r) => r[1].length), 5);
  const line = (a: string, b: string, c = ''): string =>
    `| ${a.padEnd(w0)} | ${b.padStart(w1)} | ${c}`.trimEnd();
  return [
    line('measure', 'value', 'notes'),
    `|${'-'.repeat(w0 + 2)}|${'-'.repeat(w1 + 1)}:|-------`,
    ...rows.map((r) => line(...r)),
  ].join('\n');
}

export function renderReport(r: ControllerResult): string {
  const n = r.controller.create.ops;
  const per = (x: number | undefined): number | undefined => (x === undefined ? undefined : x / n);
  const c = r.controller.cost;
  const rawCpu =
    (r.raw.cost.cpuSeconds['kube-apiserver'] ?? 0) + (r.raw.cost.cpuSeconds['etcd'] ?? 0);
  const ctlApiCpu = (c.cpuSeconds['kube-apiserver'] ?? 0) + (c.cpuSeconds['etcd'] ?? 0);
  const ms = (s: number | undefined): number | undefined =>
    s === undefined ? undefined : (s * 1000) / n;
  const rows: [string, string, string?][] = [
    [
      'raw: creates/s (kube-apiserver alone)',
      fmt(r.raw.create.perSecond),
      `${r.raw.create.ops} Sandboxes, ${r.raw.create.errors} errors, ${fmt(r.raw.create.seconds)} s`,
    ],
    ['raw: create latency ms p50 / p95 / p99', pct(r.raw.create.latencyMs)],
    [
      'raw: apiserver + etcd CPU ms per create',
      fmt((rawCpu * 1000) / Math.max(1, r.raw.create.ops)),
    ],
    ['raw: deletes/s', fmt(r.raw.delete.perSecond)],
    [
      'ctl: creates/s while the controller runs',
      fmt(r.controller.create.perSecond),
      `${ratio(r.controller.create.perSecond, r.raw.create.perSecond)} of raw`,
    ],
    ['ctl: create latency ms p50 / p95 / p99', pct(r.controller.create.latencyMs)],
    [
      'ctl: time until all Ready, s',
      fmt(r.controller.timeToAllReadySeconds),
      r.controller.allReady
        ? 'first create sent → last Ready seen (watch)'
        : `NOT all Ready: ${r.controller.ready}/${n} seen Ready, ${r.controller.readyAtEnd} Ready at the end, ${r.controller.nodeNotReadyEvents} NodeNotReady events`,
    ],
    [
      'ctl: Ready at the end (list)',
      String(r.controller.readyAtEnd),
      `${r.controller.nodeNotReadyEvents} NodeNotReady events (node leases lapsed; KCM marks the node's Pods NotReady)`,
    ],
    [
      'ctl: Sandboxes Ready per second',
      fmt(r.controller.readyPerSecond),
      `${ratio(r.controller.readyPerSecond, r.raw.create.perSecond)} of raw creates/s`,
    ],
    ['ctl: create → Ready ms p50 / p95 / p99', pct(r.controller.createToReadyMs)],
    ...Object.entries(r.controller.stageMs).map(([k, v]): [string, string] => [`    ${k}`, pct(v)]),
    [
      'ctl: reconciles per Sandbox',
      fmt(per(c.reconcilesTotal)),
      Object.entries(c.reconciles ?? {})
        .map(([k, v]) => `${k} ${fmt(v / n)}`)
        .join(', '),
    ],
    [
      'ctl: reconcile mean ms',
      fmt(c.reconcileMeanMs),
      `queue wait mean ${fmt(c.queueWaitMeanMs)} ms; API request mean ${fmt(c.requestMeanMs)} ms; client rate-limiter wait ${fmt(c.rateLimiterWaitSeconds)} s in all; workqueue retries ${c.workqueueRetries ?? 0}`,
    ],
    [
      'ctl: controller requests per Sandbox',
      fmt(per(Object.values(c.controllerRequests ?? {}).reduce((a, b) => a + b, 0))),
      Object.entries(c.controllerRequests ?? {})
        .map(([k, v]) => `${k} ${fmt(v / n)}`)
        .join(', '),
    ],
    [
      'ctl: API writes per Sandbox (all clients)',
      fmt(per(c.apiWritesTotal)),
      `409s ${fmt(per(c.apiWrites409))}/Sandbox; raw phase: ${fmt(r.raw.cost.apiWritesTotal / Math.max(1, r.raw.create.ops))}`,
    ],
    ...Object.entries(c.apiWrites)
      .slice(0, 10)
      .map(([k, v]): [string, string] => [`    ${k}`, fmt(v / n)]),
    [
      'ctl: Sandbox watch events per Sandbox',
      fmt(r.controller.sandboxWatchEvents / n),
      `${Object.entries(r.controller.watchEventTypes)
        .map(([k, v]) => `${k} ${v}`)
        .join(
          ', ',
        )}; watches reopened ${JSON.stringify(r.controller.watchReopens)}, relisted ${JSON.stringify(r.controller.watchRelists)}`,
    ],
    [
      'ctl: watches closed by kube-apiserver',
      fmt(Object.values(c.terminatedWatchers).reduce((a, b) => a + b, 0)),
      `slow readers, all clients: ${JSON.stringify(c.terminatedWatchers)}`,
    ],
    [
      'ctl: controller CPU s',
      fmt(c.cpuSeconds['controller']),
      `${fmt(ms(c.cpuSeconds['controller']))} ms per Sandbox; ${ratio(c.cpuSeconds['controller'], rawCpu)} of raw apiserver+etcd CPU`,
    ],
    [
      'ctl: controller peak RSS MB (VmHWM)',
      fmt(r.controller.peakRssMb),
      `at end ${fmt(r.controller.endRssMb)} MB`,
    ],
    ...['kube-apiserver', 'etcd', 'kube-controller-manager', 'kube-scheduler', 'kwok'].map(
      (p): [string, string, string] => [
        `ctl: ${p} CPU s`,
        fmt(c.cpuSeconds[p]),
        `${fmt(ms(c.cpuSeconds[p]))} ms per Sandbox`,
      ],
    ),
    [
      'ctl: apiserver + etcd CPU ms per Sandbox',
      fmt(ms(ctlApiCpu)),
      `${ratio(ctlApiCpu, rawCpu)} of the raw phase`,
    ],
  ];
  const la = (x: number[]): string => x.map((v) => v.toFixed(2)).join(' ');
  return [
    `controller benchmark: ${r.sandboxes} Sandboxes, ${r.concurrency} creates in flight, ${r.nodes} kwok nodes; ${r.cpus} CPUs, load average ${la(r.loadAverage.before)} → ${la(r.loadAverage.after)}`,
    `controller: agent-sandbox controller ${r.controllerArgs.join(' ')}`,
    '',
    table(rows),
  ].join('\n');
}

/** Ready and created counts over time, as a small hand-drawn SVG (no chart dependency). */
export function readyChart(r: ControllerResult): string {
  const W = 720,
    H = 360,
    L = 60,
    B = 40,
    T = 30,
    R = 20;
  const tMax = Math.max(1, ...r.timeline.map((p) => p.t));
  const x = (t: number): number => L + ((W - L - R) * t) / tMax;
  const y = (v: number): number => H - B - ((H - B - T) * v) / Math.max(1, r.sandboxes);
  const path = (key: 'created' | 'ready' | 'podsCreated' | 'podsBound' | 'podsReady'): string =>
    r.timeline
      .map((p, i) => `${i ? 'L' : 'M'}${x(p.t).toFixed(1)},${y(p[key]).toFixed(1)}`)
      .join(' ');
  const ticks = [0, 0.25, 0.5, 0.75, 1];
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="11">
<rect width="${W}" height="${H}" fill="white"/>
<text x="${L}" y="18">${r.sandboxes} Sandboxes over time: created (grey), Pods created (orange), bound (violet), Ready (green), Sandboxes Ready (blue); raw create rate ${r.raw.create.perSecond}/s</text>
${ticks.map((f) => `<line x1="${L}" x2="${W - R}" y1="${y(f * r.sandboxes)}" y2="${y(f * r.sandboxes)}" stroke="#ddd"/><text x="${L - 6}" y="${y(f * r.sandboxes) + 4}" text-anchor="end">${Math.round(f * r.sandboxes)}</text>`).join('\n')}
${ticks.map((f) => `<text x="${x(f * tMax)}" y="${H - B + 16}" text-anchor="middle">${(f * tMax).toFixed(0)} s</text>`).join('\n')}
<path d="${path('created')}" fill="none" stroke="#999" stroke-width="2"/>
<path d="${path('podsCreated')}" fill="none" stroke="#ff7f0e" stroke-width="1.5"/>
<path d="${path('podsBound')}" fill="none" stroke="#9467bd" stroke-width="1.5"/>
<path d="${path('podsReady')}" fill="none" stroke="#2ca02c" stroke-width="1.5"/>
<path d="${path('ready')}" fill="none" stroke="#1f77b4" stroke-width="2"/>
</svg>
`;
}
