// Benchmark: how fast kubectl is answered while slow and greedy clients hold on (issue 15's
// must-show: within a second under 200 slowloris connections and a watch flood). For each target
// it times `kubectl get configmaps` alone (the floor: kubectl's own start-up is most of it), then
// under the flood, then under the flood while writes fan out to every watch. Prints p50/p95/max
// per phase and writes bench/results/slow-clients-<timestamp>.json.
//
//   npx tsx bench/apiserver/slow-clients.ts [--targets file-tls,kube] [--shared-cluster]
//                                           [--rounds 10] [--slowloris 200] [--watches 100]
//
// Targets are those of targets.ts; the default is the embedded server as `agent-sandbox
// apiserver` serves it (own process, SQLite file, HTTPS, token) beside kube-apiserver (a private
// cluster unless --shared-cluster).
import { slowloris } from '@agent-sandbox/apiserver/testing';
import { KubeConfig } from '@kubernetes/client-node';
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import type { Client, WatchStream } from './client.ts';
import { summarize, type LatencySummary } from './stats.ts';
import { startTarget, TARGET_KEYS, type BenchTarget, type TargetKey } from './targets.ts';

const run = promisify(execFile);
const { values } = parseArgs({
  options: {
    targets: { type: 'string', default: 'file-tls,kube' },
    'shared-cluster': { type: 'boolean', default: false },
    rounds: { type: 'string', default: '10' },
    slowloris: { type: 'string', default: '200' },
    watches: { type: 'string', default: '100' },
  },
});

function count(flag: string, text: string): number {
  if (!/^\d+$/.test(text) || Number(text) < 1)
    throw new Error(`--${flag} must be a whole number ≥ 1, got ${JSON.stringify(text)}`);
  return Number(text);
}
const ROUNDS = count('rounds', values.rounds);
const LORIS = count('slowloris', values.slowloris);
const WATCHES = count('watches', values.watches);
const keys = values.targets.split(',').map((k) => k.trim()) as TargetKey[];
for (const k of keys)
  if (!(TARGET_KEYS as readonly string[]).includes(k))
    throw new Error(`--targets: unknown target ${k}; use ${TARGET_KEYS.join(', ')}`);

const log = (msg: string): void =>
  console.error(`[${(performance.now() / 1000).toFixed(1)}s] ${msg}`);
const runId = Date.now().toString(36);

interface PhaseResult {
  target: string;
  phase: 'alone' | 'flood' | 'flood+writes';
  kubectlMs: LatencySummary | undefined;
  samplesMs: number[];
  /** Slowloris sockets the server had not closed when the phase ended. */
  slowlorisOpen?: number;
  /** Writes made during the phase, each delivered to every watch. */
  writes?: number;
}

async function kubectlMs(kubeconfig: string, ns: string): Promise<number> {
  const started = performance.now();
  const { stdout } = await run('kubectl', [
    '--kubeconfig',
    kubeconfig,
    '-n',
    ns,
    'get',
    'configmaps',
    '-o',
    'name',
  ]);
  if (!stdout.includes('configmap/seed')) throw new Error(`kubectl get: unexpected ${stdout}`);
  return Math.round(performance.now() - started);
}

async function timeKubectl(t: BenchTarget, ns: string): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < ROUNDS; i++) samples.push(await kubectlMs(t.kubeconfig, ns));
  return samples;
}

function configMap(name: string): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: 'b' } };
}

/** Writes one ConfigMap after another until stopped; resolves with how many it wrote. */
function writer(client: Client, ns: string): { stop: () => Promise<number> } {
  let stopped = false;
  let written = 0;
  const loop = (async () => {
    while (!stopped) {
      const res = await client.request(
        'POST',
        `/api/v1/namespaces/${ns}/configmaps`,
        configMap(`w-${written}`),
      );
      if (res.status !== 201) throw new Error(`write: HTTP ${res.status}`);
      written += 1;
      await new Promise((r) => setTimeout(r, 50));
    }
    return written;
  })();
  return {
    stop: () => {
      stopped = true;
      return loop;
    },
  };
}

async function benchTarget(t: BenchTarget): Promise<PhaseResult[]> {
  const ns = `slow-${runId}`;
  const created = await t.client.request('POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: ns },
  });
  if (created.status !== 201) throw new Error(`${t.key}: namespace: HTTP ${created.status}`);
  await t.client.request('POST', `/api/v1/namespaces/${ns}/configmaps`, configMap('seed'));
  const results: PhaseResult[] = [];
  const phase = (
    name: PhaseResult['phase'],
    samples: number[],
    extra: Partial<PhaseResult> = {},
  ): void => {
    results.push({
      target: t.key,
      phase: name,
      kubectlMs: summarize(samples),
      samplesMs: samples,
      ...extra,
    });
    log(`${t.key}: ${name}: kubectl ${samples.join(', ')} ms`);
  };
  phase('alone', await timeKubectl(t, ns));

  const kc = new KubeConfig();
  kc.loadFromFile(t.kubeconfig);
  const loris = slowloris(kc.getCurrentCluster()?.server ?? '', LORIS);
  let delivered = 0;
  const watches: WatchStream[] = [];
  try {
    for (let i = 0; i < WATCHES; i++)
      watches.push(
        t.client.watch(`/api/v1/namespaces/${ns}/configmaps?watch=true`, () => (delivered += 1)),
      );
    await Promise.all(watches.map((w) => w.ready));
    phase('flood', await timeKubectl(t, ns), { slowlorisOpen: loris.open() });
    const w = writer(t.client, ns);
    const samples = await timeKubectl(t, ns);
    const writes = await w.stop();
    phase('flood+writes', samples, { slowlorisOpen: loris.open(), writes });
    log(`${t.key}: ${delivered} watch events delivered`);
  } finally {
    loris.stop();
    watches.forEach((w) => w.close());
    await t.client.request('DELETE', `/api/v1/namespaces/${ns}`).catch(() => undefined);
  }
  return results;
}

function table(results: PhaseResult[]): string {
  const rows = [
    ['target', 'phase', 'kubectl p50 ms', 'p95', 'max', 'n', 'slowloris open', 'writes'],
  ];
  for (const r of results)
    rows.push([
      r.target,
      r.phase,
      String(r.kubectlMs?.p50 ?? ''),
      String(r.kubectlMs?.p95 ?? ''),
      String(r.kubectlMs?.max ?? ''),
      String(r.kubectlMs?.count ?? 0),
      r.slowlorisOpen === undefined ? '' : `${r.slowlorisOpen}/${LORIS}`,
      r.writes === undefined ? '' : String(r.writes),
    ]);
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  return rows.map((row) => row.map((c, i) => c.padEnd(widths[i]!)).join('  ')).join('\n');
}

const loadBefore = loadavg();
const results: PhaseResult[] = [];
for (const key of keys) {
  log(`${key}: starting`);
  const t = await startTarget(key, { sharedCluster: values['shared-cluster'], log });
  try {
    results.push(...(await benchTarget(t)));
  } finally {
    await t.stop();
  }
}
console.log(
  `kubectl get configmaps under ${LORIS} slowloris sockets and ${WATCHES} watches, ${ROUNDS} rounds per phase`,
);
console.log(table(results));
const dir = fileURLToPath(new URL('../results/', import.meta.url));
mkdirSync(dir, { recursive: true });
const file = `${dir}slow-clients-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
writeFileSync(
  file,
  JSON.stringify(
    {
      rounds: ROUNDS,
      slowloris: LORIS,
      watches: WATCHES,
      loadBefore,
      loadAfter: loadavg(),
      results,
    },
    null,
    2,
  ),
);
console.log(`wrote ${file}`);
