// Benchmark: the node agent's cold start and exec per runtime against the bare runtimes' spawn
// floors, measured in the same run (issue 11). A Pod is created on the embedded API server; the
// node agent (runc, gVisor) binds and runs it on a bridge Pod network; the clock stops at the first
// output of an exec into it. Exec round trips are compared with a plain local spawn. Prints a table
// and the ratios, writes bench/results/node-<timestamp>.json and .png (log scale).
//
//   npm run bench:node -- [--rounds 5] [--execs 20]
import { startTestApiServer } from '@agent-sandbox/apiserver/testing';
import { KubeClient, PODS, kubeConfigFromFile } from '@agent-sandbox/kube';
import type { KubeObject, Pod } from '@agent-sandbox/kube-types';
import {
  BridgePodNetwork,
  ImageService,
  ImageStore,
  NodeAgent,
  RegistryClient,
  hostNodeFacts,
  loadOciLayout,
  runcRuntime,
  runscRuntime,
} from '@agent-sandbox/kubelet';
import { buildTestImage, createRuntimeClass } from '@agent-sandbox/kubelet/testing';
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { percentiles, type Percentiles } from '../claims/stats.ts';
import { floors, timeToOutput } from './floors.ts';
import { writeBarsPng } from './plot.ts';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    execs: { type: 'string', default: '20' },
  },
});
const rounds = Number(values.rounds);
const execs = Number(values.execs);
if (!(rounds > 0) || !(execs > 0)) throw new Error('--rounds and --execs take positive numbers');
const log = (m: string): void => console.error(`[${new Date().toISOString().slice(11, 19)}] ${m}`);
const IMAGE = 'localhost/bench/busybox:v1';
const RUNTIMES = [
  { name: 'runc', runtimeClassName: undefined },
  { name: 'gvisor', runtimeClassName: 'gvisor' },
] as const;

const dir = await mkdtemp(join(tmpdir(), 'asb-bench-node-'));
const api = await startTestApiServer();
const client = new KubeClient({ config: kubeConfigFromFile(api.kubeconfigPath) });
const store = new ImageStore(join(dir, 'images'));
const record = await loadOciLayout(
  store,
  (await buildTestImage(join(dir, 'build'))).layoutDir,
  IMAGE,
);
const rootfs = await store.rootfs(record);
const network = new BridgePodNetwork({
  stateDir: join(dir, 'net'),
  podCidr: '10.233.11.0/24',
  bridge: 'kbn0',
  prefix: 'kbn',
});
const agent = new NodeAgent({
  client,
  facts: hostNodeFacts('bench-node'),
  runtimes: [runcRuntime(join(dir, 'runc')), runscRuntime(join(dir, 'runsc'))],
  network,
  images: new ImageService(store, new RegistryClient()),
  dataDir: join(dir, 'node'),
  cgroupParent: 'asb-bench',
});
await agent.start();
await createRuntimeClass(client, 'gvisor', 'runsc');

async function until<T>(f: () => Promise<T | undefined>, what: string): Promise<T> {
  const end = Date.now() + 60_000;
  for (;;) {
    const v = await f().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

function execArgv(name: string): { file: string; args: string[] } {
  const cmd = agent.execCommand({ namespace: 'default', name }, 'main', ['echo', 'hi'], {
    tty: false,
  });
  return { file: cmd.file, args: cmd.args };
}

interface ColdRound {
  /** Pod created → spec.nodeName set (the agent's bind). */
  boundMs: number;
  /** → the agent's first status write. */
  acceptedMs: number;
  runningMs: number;
  firstOutputMs: number;
}

/** Pod created → Running (as the API shows it) → first output of an exec into it. */
async function coldStart(name: string, runtimeClassName: string | undefined): Promise<ColdRound> {
  const t0 = performance.now();
  await client.create(PODS, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: {
      ...(runtimeClassName ? { runtimeClassName } : {}),
      terminationGracePeriodSeconds: 0,
      containers: [
        { name: 'main', image: IMAGE, imagePullPolicy: 'IfNotPresent', command: ['sleep', '3600'] },
      ],
    },
  } as Pod & KubeObject);
  let boundMs = NaN;
  let acceptedMs = NaN;
  await until(async () => {
    const p = await client.get<Pod & KubeObject>(PODS, 'default', name);
    const now = performance.now() - t0;
    if (p.spec?.nodeName && Number.isNaN(boundMs)) boundMs = now;
    if (p.status?.containerStatuses && Number.isNaN(acceptedMs)) acceptedMs = now;
    return p.status?.phase === 'Running' ? true : undefined;
  }, `${name} Running`);
  const runningMs = performance.now() - t0;
  const { file, args } = execArgv(name);
  await timeToOutput(file, args);
  return { boundMs, acceptedMs, runningMs, firstOutputMs: performance.now() - t0 };
}

async function removePod(name: string): Promise<void> {
  await client.delete(PODS, 'default', name);
  await until(
    () =>
      client.get(PODS, 'default', name).then(
        () => undefined,
        () => true,
      ),
    `${name} deleted`,
  );
}

async function sample(n: number, f: () => Promise<number>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(await f());
  return out;
}

const result: Record<string, Percentiles | undefined> = {};
try {
  const floorList = await floors(rootfs, dir);
  for (const f of floorList) {
    await timeToOutput(f.file, f.args); // warm the page cache
    result[`floor ${f.name}`] = percentiles(
      await sample(rounds * 2, () => timeToOutput(f.file, f.args)),
    );
    log(`floor ${f.name}: p50 ${result[`floor ${f.name}`]?.p50} ms`);
  }
  for (const rt of RUNTIMES) {
    const cold: ColdRound[] = [];
    for (let i = 0; i < rounds; i++) {
      const name = `${rt.name}-${i}`;
      cold.push(await coldStart(name, rt.runtimeClassName));
      if (i < rounds - 1) await removePod(name);
    }
    const last = `${rt.name}-${rounds - 1}`;
    const { file, args } = execArgv(last);
    result[`${rt.name} Pod → bound`] = percentiles(cold.map((c) => c.boundMs));
    result[`${rt.name} Pod → first status`] = percentiles(cold.map((c) => c.acceptedMs));
    result[`${rt.name} Pod → Running`] = percentiles(cold.map((c) => c.runningMs));
    result[`${rt.name} Pod → first exec output`] = percentiles(cold.map((c) => c.firstOutputMs));
    result[`${rt.name} exec round trip`] = percentiles(
      await sample(execs, () => timeToOutput(file, args)),
    );
    await removePod(last);
    log(`${rt.name}: cold p50 ${result[`${rt.name} Pod → first exec output`]?.p50} ms`);
  }
} finally {
  await agent.stop();
  await network.destroy();
  await api.close();
  await rm(dir, { recursive: true, force: true });
}

const p50 = (k: string): number => result[k]?.p50 ?? NaN;
const ratios: Record<string, number> = {};
for (const rt of RUNTIMES) {
  ratios[`${rt.name} cold / runc run floor (target ≤ 3)`] =
    p50(`${rt.name} Pod → first exec output`) / p50('floor runc run');
  ratios[`${rt.name} exec / local spawn (target ≤ 2)`] =
    p50(`${rt.name} exec round trip`) / p50('floor local spawn');
}
ratios['gvisor cold / runsc do floor'] =
  p50('gvisor Pod → first exec output') / p50('floor runsc do');

console.log('| measurement | n | p50 ms | p90 ms | max ms |\n| --- | --- | --- | --- | --- |');
for (const [k, v] of Object.entries(result))
  console.log(`| ${k} | ${v?.n} | ${v?.p50} | ${v?.p90} | ${v?.max} |`);
console.log('\n| ratio (p50) | value |\n| --- | --- |');
for (const [k, v] of Object.entries(ratios)) console.log(`| ${k} | ${v.toFixed(2)} |`);

const resultsDir = fileURLToPath(new URL('../results/', import.meta.url));
mkdirSync(resultsDir, { recursive: true });
const base = `${resultsDir}node-${new Date().toISOString().replace(/[:.]/g, '-')}`;
const machine = { cpus: cpus().length, loadavg: loadavg() };
writeFileSync(`${base}.json`, JSON.stringify({ rounds, execs, machine, result, ratios }, null, 2));
writeBarsPng(
  `${base}.png`,
  Object.entries(result).map(([k, v]) => ({
    group: k.startsWith('floor') ? 0 : k.startsWith('runc') ? 1 : 2,
    ms: v?.p50 ?? 0,
  })),
);
console.log(`\n${base}.json\n${base}.png`);
