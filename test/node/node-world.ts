// One real node for the runtime suites: the embedded API server with our CRDs, the controller
// manager with the extension controllers, and the node agent with runc, gVisor and bubblewrap on a
// bridge pod network of its own (names prefixed `ktrtNNN`, NNN from the pid) with NetworkPolicy
// enforced. A test "internet" namespace routed through the host answers on 198.19.NNN.10 and, for
// this run's Pods only (a route table chosen by source address), on the metadata address
// 169.254.169.254, so egress rules can be proved both ways. Every host-global name, address and
// route is this run's own: two runs at once (two checkouts) neither collide nor clean up each other.
import {
  readOurCrds,
  startTestApiServer,
  type TestApiServer,
} from '@agent-sandbox/apiserver/testing';
import { startSandboxController, type RunningController } from '@agent-sandbox/controllers/testing';
import { KubeClient, kubeConfigFromFile, type KubeClient as Client } from '@agent-sandbox/kube';
import {
  BridgePodNetwork,
  ImageService,
  ImageStore,
  NodeAgent,
  PolicyEnforcer,
  RegistryClient,
  bwrapRuntime,
  hostNodeFacts,
  loadOciLayout,
  runcRuntime,
  runscRuntime,
} from '@agent-sandbox/kubelet';
import { buildTestImage, createRuntimeClass, findLeaks } from '@agent-sandbox/kubelet/testing';
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, connect, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const IMAGE = 'localhost/test/busybox:v1';
const N = process.pid % 250;
/** Fixed width: no run's prefix is the start of another's (ktrt007 / ktrt071). */
export const PREFIX = `ktrt${String(N).padStart(3, '0')}`;
/** 10.237/16: no other suite's or bench's pod CIDRs (bench:node takes 10.233.N). */
export const SUBNET = `10.237.${N}`;
export const CIDR = `${SUBNET}.0/24`;
export const GATEWAY = `${SUBNET}.1`;
/** The "internet" uplink: 198.18.0.0/15 is for tests and outside the template policy's except list. */
const [UPLINK_HOST, UPLINK_PEER] = [`198.19.${N}.1`, `198.19.${N}.10`];
export const INTERNET = UPLINK_PEER;
export const METADATA = '169.254.169.254';
const BRIDGE = `${PREFIX}0`;
const INET_NS = `${PREFIX}-inet`;
const [INET_HOST, INET_PEER] = [`${PREFIX}i0`, `${PREFIX}i1`];
const POLICY_TABLE = `${PREFIX}_policy`;
/** Our Pods' route to the metadata address: a table of our own, chosen by source address. */
const ROUTE_TABLE = String(21_000 + N);
const CGROUP_PARENT = `asb-rt-${process.pid}`;

/** RuntimeClass name → handler, as `up` creates them. */
export const RUNTIME_CLASSES_BY_NAME = { gvisor: 'runsc', bubblewrap: 'bubblewrap' } as const;

export interface NodeWorld {
  dir: string;
  api: TestApiServer;
  client: Client;
  agent: NodeAgent;
  network: BridgePodNetwork;
  enforcer: PolicyEnforcer;
  /** A port on every host address that forwards to the API server (as a node-wide API server). */
  apiPort: number;
  /** Another host port on every address (the host's other services). */
  hostPort: number;
  /** A file on the host no sandbox may read. */
  secretFile: string;
  close(): Promise<string[]>;
}

export function requireBinaries(): void {
  for (const [bin, pkg] of [
    ['runc', 'runc'],
    ['runsc', 'runsc'],
    ['bwrap', 'bubblewrap'],
    ['nft', 'nftables'],
  ] as const)
    if (spawnSync(bin, ['--version']).status !== 0)
      throw new Error(`${bin} is missing: apt-get install ${pkg} (.ci/run installs it)`);
}

async function inetNamespace(children: ChildProcess[]): Promise<void> {
  await run('ip', ['netns', 'add', INET_NS]);
  await run('ip', ['link', 'add', INET_HOST, 'type', 'veth', 'peer', 'name', INET_PEER]);
  await run('ip', ['link', 'set', INET_PEER, 'netns', INET_NS]);
  await run('ip', ['addr', 'add', `${UPLINK_HOST}/24`, 'dev', INET_HOST]);
  await run('ip', ['link', 'set', INET_HOST, 'up']);
  for (const args of [
    ['addr', 'add', `${UPLINK_PEER}/24`, 'dev', INET_PEER],
    ['addr', 'add', `${METADATA}/32`, 'dev', INET_PEER],
    ['link', 'set', INET_PEER, 'up'],
    ['link', 'set', 'lo', 'up'],
    ['route', 'add', 'default', 'via', UPLINK_HOST],
  ])
    await run('ip', ['-n', INET_NS, ...args]);
  // Not the main table: the host's (and other runs') metadata route stays as it is.
  await run('ip', ['route', 'add', `${METADATA}/32`, 'via', UPLINK_PEER, 'table', ROUTE_TABLE]);
  await run('ip', ['rule', 'add', 'from', CIDR, 'table', ROUTE_TABLE]);
  const child = spawn('nsenter', [
    `--net=/run/netns/${INET_NS}`,
    process.execPath,
    '-e',
    `require('net').createServer((s)=>{s.on('error',()=>{});s.end('pong\\n')}).listen(8080,'0.0.0.0',()=>console.log('ready'))`,
  ]);
  children.push(child);
  await new Promise((resolve) => child.stdout.once('data', resolve));
}

async function removeInetNamespace(): Promise<void> {
  await run('ip', ['rule', 'del', 'from', CIDR, 'table', ROUTE_TABLE]).catch(() => undefined);
  await run('ip', ['route', 'flush', 'table', ROUTE_TABLE]).catch(() => undefined);
  await run('ip', ['netns', 'delete', INET_NS]).catch(() => undefined);
  await run('ip', ['link', 'delete', INET_HOST]).catch(() => undefined);
}

function listenAll(onConnection: (s: import('node:net').Socket) => void): Promise<Server> {
  const server = createServer(onConnection);
  return new Promise((resolve) => server.listen(0, '0.0.0.0', () => resolve(server)));
}

const portOf = (s: Server) => (s.address() as { port: number }).port;

export async function startNodeWorld(namespace: string): Promise<NodeWorld> {
  requireBinaries();
  const dir = await mkdtemp(join(tmpdir(), 'asb-rt-'));
  const children: ChildProcess[] = [];
  await removeInetNamespace();
  await inetNamespace(children);
  const api = await startTestApiServer({ crds: readOurCrds() });
  const client = new KubeClient({ config: kubeConfigFromFile(api.kubeconfigPath) });
  const apiUrl = new URL(api.url);
  const forward = await listenAll((s) => {
    const up = connect(Number(apiUrl.port), apiUrl.hostname);
    s.on('error', () => up.destroy());
    up.on('error', () => s.destroy());
    s.pipe(up).pipe(s);
  });
  const other = await listenAll((s) => {
    s.on('error', () => undefined);
    s.end('pong\n');
  });
  const store = new ImageStore(join(dir, 'images'));
  await loadOciLayout(store, (await buildTestImage(join(dir, 'build'))).layoutDir, IMAGE);
  const network = new BridgePodNetwork({
    stateDir: join(dir, 'net'),
    podCidr: CIDR,
    bridge: BRIDGE,
    prefix: PREFIX,
    poolSize: 2, // as up: most of these Pods take a network made ahead
  });
  const agent = new NodeAgent({
    client,
    facts: hostNodeFacts('node-rt'),
    runtimes: [
      runcRuntime(join(dir, 'runc')),
      runscRuntime(join(dir, 'runsc')),
      bwrapRuntime(join(dir, 'bwrap')),
    ],
    pidsLimit: 64,
    cgroupParent: CGROUP_PARENT,
    network,
    images: new ImageService(store, new RegistryClient()),
    dataDir: join(dir, 'node'),
    backoffBaseMs: 200,
  });
  await agent.start();
  for (const [name, handler] of Object.entries(RUNTIME_CLASSES_BY_NAME))
    await createRuntimeClass(client, name, handler);
  const enforcer = new PolicyEnforcer({
    client,
    table: POLICY_TABLE,
    podIps: () => network.ipam.entries(),
  });
  const controllers: RunningController = startSandboxController(client, namespace, {
    extensions: {},
  });
  const secretFile = join(dir, 'host-secret');
  await import('node:fs/promises').then((fs) => fs.writeFile(secretFile, 'host-secret-content'));
  return {
    dir,
    api,
    client,
    agent,
    network,
    enforcer,
    apiPort: portOf(forward),
    hostPort: portOf(other),
    secretFile,
    close: async () => {
      await controllers.stop();
      await agent.stop();
      await enforcer.remove();
      await network.destroy();
      for (const c of children) c.kill('SIGKILL');
      forward.close();
      other.close();
      await removeInetNamespace();
      const leaks = findLeaks({
        dataDir: dir,
        runtimeStateDirs: [join(dir, 'runc'), join(dir, 'runsc'), join(dir, 'bwrap')],
        netnsPrefix: PREFIX,
        linkPrefix: PREFIX,
        nftPrefix: PREFIX,
        cgroupParent: CGROUP_PARENT,
      });
      const rules = (await run('ip', ['rule', 'show', 'table', ROUTE_TABLE])).stdout;
      for (const r of rules.split('\n').filter(Boolean)) leaks.push(`ip rule ${r}`);
      await api.close();
      await rm(dir, { recursive: true, force: true });
      return leaks;
    },
  };
}
