// Benchmark: the node agent's cold start and exec per runtime against the bare runtimes' spawn
// floors, measured in the same run (issue 11). A Pod, or a Sandbox whose controller (in this
// process) makes the Pod, is created on the embedded API server; the node agent (runc, gVisor,
// bubblewrap) binds and runs it on a bridge Pod network, with the in-sandbox daemon injected as
// `up` does; the clock stops at the first output of an exec into it. Exec round trips, through the
// streaming server's backend (the daemon where it takes the exec, ADR 0037) and through the
// runtime's exec, are compared with a plain local spawn. Prints tables, the ratios and the agent's
// step breakdown, writes bench/results/node-<timestamp>.json and .png (log scale).
//
//   npm run bench:node -- [--rounds 5] [--execs 20] [--no-gvisor-daemon] [--early-create | --ab-early-create | --ab-daemon | --ab-root-pool]
//   gVisor Pods get --host-uds=open, so their execs go through the daemon, as in `up` (ADR 0040);
//   --no-gvisor-daemon keeps them on `runsc exec`. (--host-uds, that default's old flag, is kept.)
//   --http-clients: the agent and the controller over loopback HTTP, not in-process as in `up`.
//   --trace adds the API requests (by sender: bench, controller, agent) and the controller's
//   informer deliveries of each round to the step tables (trace.ts).
//   --early-create: containers created ahead of the volumes behind a start gate (ADR 0042; off
//   by default, as in `up`); --ab-early-create: runc only, rounds with it (`runc`) and without
//   (`runc-late`) interleaved.
//   --ab-daemon: runc only, rounds with the in-sandbox daemon (`runc`) and without it
//   (`runc-nodaemon`: no daemon started, so nothing of its start beside the first exec), A B B A.
//   --ab-root-pool: runc only, rounds taking roots mounted ahead (`runc`, ADR 0044) and mounting
//   their own (`runc-nopool`), A B B A.
import { inProcessFetch } from '@agent-sandbox/apiserver';
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
  podContainersBackend,
  runcRuntime,
  runscRuntime,
  type ExecPath,
  type PodDaemon,
} from '@agent-sandbox/kubelet';
import { prepareSandboxd } from '@agent-sandbox/local';
import { upNetwork } from '@agent-sandbox/local/testing';
import { buildTestImage, createRuntimeClass } from '@agent-sandbox/kubelet/testing';
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { percentiles, type Percentiles } from '../claims/stats.ts';
import { coldStart, PhaseLog, type ColdRound } from './cold-start.ts';
import { noteDaemonLine } from './daemon-timeline.ts';
import { pathCounts, throughBackend, untilDaemonPath, type ExecSample } from './exec.ts';
import { floors, spawnHold, timeToOutput } from './floors.ts';
import { markPercentiles, phaseRows, phaseTable, type PhaseRow } from './report.ts';
import { writeBarsPng } from './plot.ts';
import { ApiTrace } from './trace.ts';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    execs: { type: 'string', default: '20' },
    'host-uds': { type: 'boolean', default: false },
    'no-gvisor-daemon': { type: 'boolean', default: false },
    trace: { type: 'boolean', default: false },
    'http-clients': { type: 'boolean', default: false },
    'early-create': { type: 'boolean', default: false },
    'ab-early-create': { type: 'boolean', default: false },
    'ab-daemon': { type: 'boolean', default: false },
    'ab-root-pool': { type: 'boolean', default: false },
  },
});
const rounds = Number(values.rounds);
const gvisorRuntimeOnly = values['no-gvisor-daemon'];
const execs = Number(values.execs);
if (!(rounds > 0) || !(execs > 0)) throw new Error('--rounds and --execs take positive numbers');
const log = (m: string): void => console.error(`[${new Date().toISOString().slice(11, 19)}] ${m}`);
const IMAGE = 'localhost/bench/busybox:v1';
const abEarly = values['ab-early-create'];
const abDaemon = values['ab-daemon'];
const abPool = values['ab-root-pool'];
if ([abEarly, abDaemon, abPool].filter(Boolean).length > 1)
  throw new Error('--ab-early-create, --ab-daemon and --ab-root-pool: one A/B at a time');
/** The B arm of an A/B run (A is `runc`), interleaved round by round. */
const abArm = abEarly
  ? 'runc-late'
  : abDaemon
    ? 'runc-nodaemon'
    : abPool
      ? 'runc-nopool'
      : undefined;
const RUNTIMES: readonly { name: string; runtimeClassName: string | undefined }[] = abArm
  ? [
      { name: 'runc', runtimeClassName: undefined },
      { name: abArm, runtimeClassName: undefined },
    ]
  : [
      { name: 'runc', runtimeClassName: undefined },
      { name: 'gvisor', runtimeClassName: 'gvisor' },
      { name: 'bubblewrap', runtimeClassName: 'bubblewrap' },
    ];
/** Whether the agent creates a Pod's containers ahead (ADR 0042): not for `runc-late-*` Pods. */
const earlyCreate = (pod: { metadata?: { name?: string } }): boolean =>
  (values['early-create'] || abEarly) && !(pod.metadata?.name ?? '').startsWith('runc-late-');
/** Whether a Pod takes roots mounted ahead (ADR 0044): not the `runc-nopool-*` Pods. */
const rootPoolFor = (pod: { metadata?: { name?: string } }): boolean =>
  !(pod.metadata?.name ?? '').startsWith('runc-nopool-');

const dir = await mkdtemp(join(tmpdir(), 'asb-bench-node-'));
const api = await startTestApiServer({ crds: readOurCrds() });
const kubeConfig = kubeConfigFromFile(api.kubeconfigPath);
// One client per part, as `up` gives each its own (their User-Agents name them in --trace).
const client = new KubeClient({ config: kubeConfig, userAgent: 'bench' });
// The agent and the controller reach the server in-process, as `up` gives its components
// (apiserver in-process.ts); --http-clients sends them over loopback HTTP instead. The bench's
// own client, the user's, is always HTTP.
const inProcess = values['http-clients'] ? {} : { fetch: inProcessFetch(api.server) };
const agentClient = new KubeClient({ config: kubeConfig, userAgent: 'agent', ...inProcess });
const controllerClient = new KubeClient({
  config: kubeConfig,
  userAgent: 'controller',
  ...inProcess,
});
const trace = values.trace ? new ApiTrace() : undefined;
trace?.wrap(api.server);
const store = new ImageStore(join(dir, 'images'));
const record = await loadOciLayout(
  store,
  (await buildTestImage(join(dir, 'build'))).layoutDir,
  IMAGE,
);
const rootfs = await store.rootfs(record);
// Bridge, pod CIDR, netns/veth prefix and cgroup are this process's own (as `up`'s asbk<pid>):
// a second run at once would otherwise clean up, or remove the bridge under, this one.
const net = upNetwork('kbn', 233);
const network = new BridgePodNetwork({
  stateDir: join(dir, 'net'),
  podCidr: net.cidr,
  bridge: net.bridge,
  prefix: net.bridge,
  poolSize: 2, // as up keeps (packages/local/src/node-network.ts)
  poolMaxSize: 4,
});
const phases = new PhaseLog();
// The daemon in every Pod's first app container, as `up` injects it (sandboxd-injection.ts);
// with --ab-daemon none in the `runc-nodaemon-*` Pods.
const injection = await prepareSandboxd(join(dir, 'node'));
const noDaemon = (pod: { metadata?: { name?: string } }): boolean =>
  abDaemon && (pod.metadata?.name ?? '').startsWith('runc-nodaemon-');
const podDaemon: PodDaemon = {
  argv: (pod, c, o) => (noDaemon(pod) ? undefined : injection.daemon.argv(pod, c, o)),
  readyPorts: (pod, c) => injection.daemon.readyPorts?.(pod, c) ?? [],
};
const agent = new NodeAgent({
  client: agentClient,
  facts: hostNodeFacts('bench-node'),
  runtimes: [
    runcRuntime(join(dir, 'runc')),
    runscRuntime(join(dir, 'runsc'), 'runsc', { daemonExec: !gvisorRuntimeOnly }),
    bwrapRuntime(join(dir, 'bwrap')),
  ],
  network,
  images: new ImageService(store, new RegistryClient()),
  dataDir: join(dir, 'node'),
  cgroupParent: `asb-bench-${process.pid}`,
  onPhase: phases.sink,
  earlyCreate,
  rootPoolFor,
  // Warnings and errors to stderr: a round that never runs says why.
  log: {
    // The daemon's stderr lines: its own start's timeline becomes steps (daemon-timeline.ts).
    info: (o, m) => {
      const f = o as { container?: unknown; daemon?: unknown };
      if (m === 'in-sandbox daemon' && typeof f.container === 'string')
        noteDaemonLine(phases, f.container, f.daemon);
    },
    warn: (o, m) => log(`agent: ${m} ${JSON.stringify(o)}`),
    error: (o, m) => log(`agent error: ${m} ${JSON.stringify(o)}`),
  },
  extraReadOnlyMounts: injection.mounts,
  podDaemon,
});
await agent.start();
let lastPath: ExecPath | undefined;
const backend = podContainersBackend(agent, { onExec: (e) => (lastPath = e.path) });
const controller = startSandboxController(controllerClient, 'default');
if (trace) {
  for (const [ref, kind] of [
    [SANDBOXES, 'Sandbox'],
    [PODS, 'Pod'],
  ] as const)
    controller.manager.getInformer(ref).addHandlers({
      onAdd: () => trace.mark(`controller saw ${kind} added`),
      onUpdate: () => trace.mark(`controller saw ${kind} updated`),
    });
}
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

/** The runtime's exec of `echo hi` (`runc exec` / `runsc exec` / nested bwrap), as a command. */
function runtimeExec(name: string): { file: string; args: string[] } {
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

const backendExec = (name: string): Promise<ExecSample> => {
  lastPath = undefined;
  return throughBackend(backend, () => lastPath, name);
};

const result: Record<string, Percentiles | undefined> = {};
/** This process's RSS (MB) when each spawn() hold row was measured. */
const rssMb: Record<string, number> = {};
async function holdRow(when: string): Promise<void> {
  const key = `spawn() hold ${when}`;
  result[key] = percentiles(await sample(rounds * 2, spawnHold));
  rssMb[key] = Math.round(process.memoryUsage().rss / 2 ** 20);
  paths[key] = `${rssMb[key]} MB RSS`;
  log(`${key}: p50 ${result[key]?.p50} ms at ${rssMb[key]} MB RSS`);
}

const SPAWNS = 40;
/** ms from an exec of `script` through the backend to its end. */
async function execToExit(name: string, script: string): Promise<number> {
  const t0 = performance.now();
  const p = await backend.exec(
    { namespace: 'default', pod: name, container: 'main' },
    ['sh', '-c', script],
    {
      stdin: false,
      stdout: true,
      stderr: true,
      tty: false,
    },
  );
  p.stdout?.resume();
  p.stderr?.resume();
  await p.exited;
  return performance.now() - t0;
}

/**
 * The sandbox's own spawn floor: one fork and exec of /bin/echo by a shell already inside the
 * container (a loop of SPAWNS, less the same loop without the spawn, over SPAWNS); under gVisor
 * every new process's syscalls and page faults are ptrace stops, whoever forks it.
 */
async function inSandboxSpawns(name: string): Promise<number[]> {
  const loop = (body: string) => `i=0; while [ $i -lt ${SPAWNS} ]; do ${body}; i=$((i+1)); done`;
  const out: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const withSpawn = await execToExit(name, loop('/bin/echo hi >/dev/null'));
    const without = await execToExit(name, loop(':'));
    out.push(Math.max(0, withSpawn - without) / SPAWNS);
  }
  return out;
}

/** The daemon's own node inside a container, as its launch runs it (loader, libraries, binary). */
const daemonArgv = injection.daemon.argv(
  { metadata: {}, spec: { containers: [] } },
  { name: 'main' },
);
const NODE_ARGV = daemonArgv?.slice(0, daemonArgv.findIndex((a) => a.endsWith('/node')) + 1) ?? [];
/** What the daemon does per exec (session.ts): spawn() a detached, piped /bin/echo, to 'close'. */
const NODE_SPAWNS = `const { spawn } = require('node:child_process');
(async () => {
  const ms = [];
  for (let i = 0; i < ${SPAWNS}; i++) {
    const t = performance.now();
    await new Promise((r) => {
      const c = spawn('/bin/echo', ['hi'], { detached: true, stdio: 'pipe' });
      c.stdout.resume();
      c.stderr.resume();
      c.once('close', r);
    });
    ms.push(performance.now() - t);
  }
  console.log(ms.join(' '));
})();`;

/**
 * The daemon's part of an exec, measured apart from the channel: a node inside the container
 * (the daemon's binary, started by an exec) spawns /bin/echo SPAWNS times as the daemon does;
 * ms each. The exec round trip less this is the agent ⇄ daemon channel and the framing.
 */
async function inSandboxNodeSpawns(name: string): Promise<number[]> {
  if (NODE_ARGV.length === 0) throw new Error('the daemon launch names no node binary');
  const p = await backend.exec(
    { namespace: 'default', pod: name, container: 'main' },
    [...NODE_ARGV, '-e', NODE_SPAWNS],
    { stdin: false, stdout: true, stderr: true, tty: false },
  );
  let out = '';
  let err = '';
  p.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  p.stderr?.on('data', (c: Buffer) => (err += c.toString()));
  const exit = await p.exited;
  const ms = out.trim().split(' ').map(Number);
  if (ms.length !== SPAWNS || ms.some((x) => !(x >= 0)))
    throw new Error(`node spawns in ${name}: ${JSON.stringify(exit)} ${out} ${err.slice(-512)}`);
  return ms;
}

/** The exec rows of one runtime, on a Running Pod: the backend's path (once the daemon is
 * registered, or after 15 s without it) and the runtime's exec, interleaved. */
async function execRows(runtime: string, name: string): Promise<void> {
  // Without the daemon path gVisor execs are all `runsc exec`: no wait for the daemon.
  if (runtime !== 'gvisor' || !gvisorRuntimeOnly) {
    const registered = await untilDaemonPath(() => backendExec(name));
    log(`${runtime}: ${registered ? 'daemon registered' : 'no exec took the daemon path in 15 s'}`);
  }
  const viaBackend: ExecSample[] = [];
  const viaRuntime: number[] = [];
  const { file, args } = runtimeExec(name);
  for (let i = 0; i < execs; i++) {
    const s = await backendExec(name);
    await s.exited;
    viaBackend.push(s);
    viaRuntime.push(await timeToOutput(file, args));
  }
  result[`${runtime} in-sandbox spawn`] = percentiles(await inSandboxSpawns(name));
  result[`${runtime} in-sandbox node spawn`] = percentiles(await inSandboxNodeSpawns(name));
  result[`${runtime} exec round trip`] = percentiles(viaBackend.map((s) => s.ms));
  paths[`${runtime} exec round trip`] = pathCounts(viaBackend);
  result[`${runtime} runtime exec round trip`] = percentiles(viaRuntime);
  paths[`${runtime} runtime exec round trip`] = `runtime ${execs}/${execs}`;
}
const breakdown: Record<string, PhaseRow[]> = {};
/** Which path the execs behind a row took (`daemon 20/20`, `runtime 5/5`). */
const paths: Record<string, string> = {};
try {
  const floorList = await floors(rootfs, dir);
  for (const f of floorList) {
    await timeToOutput(f.file, f.args, f.output); // warm the page cache
    result[`floor ${f.name}`] = percentiles(
      await sample(rounds * 2, () => timeToOutput(f.file, f.args, f.output)),
    );
    log(`floor ${f.name}: p50 ${result[`floor ${f.name}`]?.p50} ms`);
  }
  await holdRow('before the rounds');
  for (const kind of ['Pod', 'Sandbox'] as const) {
    // Runtime after runtime; with an A/B flag, round after round (A/B interleaved).
    const cold = new Map(RUNTIMES.map((rt) => [rt.name, [] as ColdRound[]]));
    const firstExecs = new Map(RUNTIMES.map((rt) => [rt.name, [] as ExecSample[]]));
    const order = abArm
      ? // A B B A …: neither arm always follows the other's removal.
        Array.from({ length: rounds }, (_, i) =>
          (i % 2 ? [...RUNTIMES].reverse() : RUNTIMES).map((rt) => ({ rt, i })),
        ).flat()
      : RUNTIMES.flatMap((rt) => Array.from({ length: rounds }, (_, i) => ({ rt, i })));
    for (const { rt, i } of order) {
      const name = `${rt.name}-${kind.toLowerCase()}-${i}`;
      const spec = podSpec(rt.runtimeClassName);
      // (the first exec's process may still be exiting when the round's clock stops, as before)
      const exec = async (n: string) => firstExecs.get(rt.name)?.push(await backendExec(n));
      const daemon = rt.name !== 'runc-nodaemon';
      cold
        .get(rt.name)
        ?.push(await coldStart({ client, phases, kind, name, spec, exec, trace, daemon }));
      if (kind === 'Sandbox' && i === rounds - 1 && daemon) await execRows(rt.name, name);
      await remove(kind, name);
    }
    for (const rt of RUNTIMES) {
      const done = cold.get(rt.name) ?? [];
      paths[`${rt.name} ${kind} → first exec output`] = pathCounts(firstExecs.get(rt.name) ?? []);
      for (const [mark, p] of Object.entries(markPercentiles(done)))
        result[`${rt.name} ${kind} → ${mark}`] = p;
      breakdown[`${rt.name} ${kind}`] = phaseRows(done);
      log(
        `${rt.name} ${kind}: cold p50 ${result[`${rt.name} ${kind} → first exec output`]?.p50} ms`,
      );
    }
  }
  await holdRow('after the rounds');
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
  ratios[`${rt.name} exec / in-sandbox spawn`] =
    p50(`${rt.name} exec round trip`) / p50(`${rt.name} in-sandbox spawn`);
  ratios[`${rt.name} exec / in-sandbox node spawn`] =
    p50(`${rt.name} exec round trip`) / p50(`${rt.name} in-sandbox node spawn`);
  ratios[`${rt.name} runtime exec / local spawn`] =
    p50(`${rt.name} runtime exec round trip`) / p50('floor local spawn');
}
ratios['runc runtime exec / runc --version'] =
  p50('runc runtime exec round trip') / p50('floor runc --version');
ratios['gvisor runtime exec / runsc --version'] =
  p50('gvisor runtime exec round trip') / p50('floor runsc --version');
ratios['gvisor Sandbox cold / runsc do floor'] =
  p50('gvisor Sandbox → first exec output') / p50('floor runsc do');
ratios['bubblewrap Sandbox cold / bwrap floor'] =
  p50('bubblewrap Sandbox → first exec output') / p50('floor bwrap');

console.log(
  '| measurement | n | p50 ms | p90 ms | max ms | exec path / RSS |\n| --- | --- | --- | --- | --- | --- |',
);
for (const [k, v] of Object.entries(result))
  console.log(`| ${k} | ${v?.n} | ${v?.p50} | ${v?.p90} | ${v?.max} | ${paths[k] ?? ''} |`);
console.log('\n| ratio (p50) | value |\n| --- | --- |');
for (const [k, v] of Object.entries(ratios)) console.log(`| ${k} | ${v.toFixed(2)} |`);
for (const [k, rows] of Object.entries(breakdown)) console.log(`\n${phaseTable(k, rows)}`);

const resultsDir = fileURLToPath(new URL('../results/', import.meta.url));
mkdirSync(resultsDir, { recursive: true });
const base = `${resultsDir}node-${new Date().toISOString().replace(/[:.]/g, '-')}`;
const machine = { cpus: cpus().length, loadavg: loadavg() };
writeFileSync(
  `${base}.json`,
  JSON.stringify(
    {
      rounds,
      execs,
      hostUds: !gvisorRuntimeOnly,
      earlyCreate: abEarly ? 'ab' : values['early-create'],
      abDaemon,
      abRootPool: abPool,
      machine,
      result,
      rssMb,
      paths,
      ratios,
      breakdown,
    },
    null,
    2,
  ),
);
writeBarsPng(
  `${base}.png`,
  Object.entries(result).map(([k, v]) => ({
    group: k.startsWith('floor') ? 0 : k.startsWith('runc') ? 1 : k.startsWith('gvisor') ? 2 : 3,
    ms: v?.p50 ?? 0,
  })),
);
console.log(`\n${base}.json\n${base}.png`);
