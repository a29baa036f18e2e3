// Benchmark: the node agent's cold start and exec per runtime against the bare runtimes' spawn
// floors, measured in the same run (issue 11). A Pod, or a Sandbox whose controller (in this
// process) makes the Pod, is created on the embedded API server; the node agent (runc, gVisor,
// bubblewrap) binds and runs it on a bridge Pod network; the clock stops at the first output of an
// exec into it. Exec round trips are compared with a plain local spawn. Prints tables, the ratios and the
// agent's step breakdown, writes bench/results/node-<timestamp>.json and .png (log scale).
//
//   npm run bench:node -- [--rounds 5] [--execs 20]
import { readOurCrds, startTestApiServer } from '@agent-sandbox/apiserver/testing';
import { SANDBOXES } from '@agent-sandbox/controllers';
import { startSandboxController } from '@agent-sandbox/controllers/testing';
import { KubeClient, PODS, kubeConfigFromFile } from '@agent-sandbox/kube';
import type { PodSpec } from '@agent-sandbox/kube-types';
import {
  BridgePodNetwork,
  ImageService,
  ImageStore,
  NodeAgent,
  RegistryClient,
  bwrapRuntime,
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
import { coldStart, PhaseLog, type ColdRound } from './cold-start.ts';
import { floors, timeToOutput } from './floors.ts';
import { markPercentiles, phaseRows, phaseTable, type PhaseRow } from './report.ts';
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
  { name: 'bubblewrap', runtimeClassName: 'bubblewrap' },
] as const;

const dir = await mkdtemp(join(tmpdir(), 'asb-bench-node-'));
const api = await startTestApiServer({ crds: readOurCrds() });
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
const phases = new PhaseLog();
const agent = new NodeAgent({
  client,
  facts: hostNodeFacts('bench-node'),
  runtimes: [
    runcRuntime(join(dir, 'runc')),
    runscRuntime(join(dir, 'runsc')),
    bwrapRuntime(join(dir, 'bwrap')),
  ],
  network,
  images: new ImageService(store, new RegistryClient()),
  dataDir: join(dir, 'node'),
  cgroupParent: 'asb-bench',
  onPhase: phases.sink,
});
await agent.start();
const controller = startSandboxController(client, 'default');
await createRuntimeClass(client, 'gvisor', 'runsc');
await createRuntimeClass(client, 'bubblewrap', 'bubblewrap');

async function until<T>(f: () => Promise<T | undefined>, what: string): Promise<T> {
  const end = Date.now() + 60_000;
  for (;;) {
    const v = await f().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function execArgv(name: string): { file: string; args: string[] } {
  const cmd = agent.execCommand({ namespace: 'default', name }, 'main', ['echo', 'hi'], {
    tty: false,
  });
  return { file: cmd.file, args: cmd.args };
}

function podSpec(runtimeClassName: string | undefined): PodSpec {
  return {
    ...(runtimeClassName ? { runtimeClassName } : {}),
    terminationGracePeriodSeconds: 0,
    containers: [
      { name: 'main', image: IMAGE, imagePullPolicy: 'IfNotPresent', command: ['sleep', '3600'] },
    ],
  };
}

/** Deletes what a round created and waits until its Pod is gone (not measured). */
async function remove(kind: 'Pod' | 'Sandbox', name: string): Promise<void> {
  await client.delete(kind === 'Pod' ? PODS : SANDBOXES, 'default', name);
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

const exec = (name: string): Promise<number> => {
  const { file, args } = execArgv(name);
  return timeToOutput(file, args);
};

const result: Record<string, Percentiles | undefined> = {};
const breakdown: Record<string, PhaseRow[]> = {};
try {
  const floorList = await floors(rootfs, dir);
  for (const f of floorList) {
    await timeToOutput(f.file, f.args, f.output); // warm the page cache
    result[`floor ${f.name}`] = percentiles(
      await sample(rounds * 2, () => timeToOutput(f.file, f.args, f.output)),
    );
    log(`floor ${f.name}: p50 ${result[`floor ${f.name}`]?.p50} ms`);
  }
  for (const rt of RUNTIMES) {
    for (const kind of ['Pod', 'Sandbox'] as const) {
      const cold: ColdRound[] = [];
      for (let i = 0; i < rounds; i++) {
        const name = `${rt.name}-${kind.toLowerCase()}-${i}`;
        const spec = podSpec(rt.runtimeClassName);
        cold.push(await coldStart({ client, phases, kind, name, spec, exec }));
        if (kind === 'Sandbox' && i === rounds - 1) {
          result[`${rt.name} exec round trip`] = percentiles(await sample(execs, () => exec(name)));
        }
        await remove(kind, name);
      }
      for (const [mark, p] of Object.entries(markPercentiles(cold)))
        result[`${rt.name} ${kind} → ${mark}`] = p;
      breakdown[`${rt.name} ${kind}`] = phaseRows(cold);
      log(
        `${rt.name} ${kind}: cold p50 ${result[`${rt.name} ${kind} → first exec output`]?.p50} ms`,
      );
    }
  }
} finally {
  await controller.stop();
  await agent.stop();
  await network.destroy();
  await api.close();
  await rm(dir, { recursive: true, force: true });
}

const p50 = (k: string): number => result[k]?.p50 ?? NaN;
const ratios: Record<string, number> = {};
for (const rt of RUNTIMES) {
  for (const kind of ['Pod', 'Sandbox'])
    ratios[`${rt.name} ${kind} cold / runc run floor (target ≤ 3)`] =
      p50(`${rt.name} ${kind} → first exec output`) / p50('floor runc run');
  ratios[`${rt.name} exec / local spawn (target ≤ 2)`] =
    p50(`${rt.name} exec round trip`) / p50('floor local spawn');
}
ratios['runc exec / runc --version'] = p50('runc exec round trip') / p50('floor runc --version');
ratios['gvisor exec / runsc --version'] =
  p50('gvisor exec round trip') / p50('floor runsc --version');
ratios['gvisor Sandbox cold / runsc do floor'] =
  p50('gvisor Sandbox → first exec output') / p50('floor runsc do');
ratios['bubblewrap Sandbox cold / bwrap floor'] =
  p50('bubblewrap Sandbox → first exec output') / p50('floor bwrap');

console.log('| measurement | n | p50 ms | p90 ms | max ms |\n| --- | --- | --- | --- | --- |');
for (const [k, v] of Object.entries(result))
  console.log(`| ${k} | ${v?.n} | ${v?.p50} | ${v?.p90} | ${v?.max} |`);
console.log('\n| ratio (p50) | value |\n| --- | --- |');
for (const [k, v] of Object.entries(ratios)) console.log(`| ${k} | ${v.toFixed(2)} |`);
for (const [k, rows] of Object.entries(breakdown)) console.log(`\n${phaseTable(k, rows)}`);

const resultsDir = fileURLToPath(new URL('../results/', import.meta.url));
mkdirSync(resultsDir, { recursive: true });
const base = `${resultsDir}node-${new Date().toISOString().replace(/[:.]/g, '-')}`;
const machine = { cpus: cpus().length, loadavg: loadavg() };
writeFileSync(
  `${base}.json`,
  JSON.stringify({ rounds, execs, machine, result, ratios, breakdown }, null, 2),
);
writeBarsPng(
  `${base}.png`,
  Object.entries(result).map(([k, v]) => ({
    group: k.startsWith('floor') ? 0 : k.startsWith('runc') ? 1 : k.startsWith('gvisor') ? 2 : 3,
    ms: v?.p50 ?? 0,
  })),
);
console.log(`\n${base}.json\n${base}.png`);
