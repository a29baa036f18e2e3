// One real node for the runtime suites: the embedded API server with our CRDs, the controller
// manager with the extension controllers, and the node agent with runc, gVisor and bubblewrap on a
// bridge pod network of its own (names prefixed `ktrt`) with NetworkPolicy enforced. A test
// "internet" namespace routed through the host answers on 198.51.100.10 and on the metadata
// address 169.254.169.254, so egress rules can be proved both ways.
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
export const PREFIX = 'ktrt';
export const CIDR = '10.233.9.0/24';
export const GATEWAY = '10.233.9.1';
export const INTERNET = '198.51.100.10';
export const METADATA = '169.254.169.254';
const BRIDGE = 'ktrt0';
const INET_NS = 'ktrt-inet';
const POLICY_TABLE = 'ktrt_policy';

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
  await run('ip', ['link', 'add', 'ktrti0', 'type', 'veth', 'peer', 'name', 'ktrti1']);
  await run('ip', ['link', 'set', 'ktrti1', 'netns', INET_NS]);
  await run('ip', ['addr', 'add', '198.51.100.1/24', 'dev', 'ktrti0']);
  await run('ip', ['link', 'set', 'ktrti0', 'up']);
  for (const args of [
    ['addr', 'add', `${INTERNET}/24`, 'dev', 'ktrti1'],
    ['addr', 'add', `${METADATA}/32`, 'dev', 'ktrti1'],
    ['link', 'set', 'ktrti1', 'up'],
    ['link', 'set', 'lo', 'up'],
    ['route', 'add', 'default', 'via', '198.51.100.1'],
  ])
    await run('ip', ['-n', INET_NS, ...args]);
  await run('ip', ['route', 'add', `${METADATA}/32`, 'via', INTERNET]);
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
  await run('ip', ['route', 'del', `${METADATA}/32`]).catch(() => undefined);
  await run('ip', ['netns', 'delete', INET_NS]).catch(() => undefined);
  await run('ip', ['link', 'delete', 'ktrti0']).catch(() => undefined);
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
    cgroupParent: 'asb-rt',
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
        cgroupParent: 'asb-rt',
      });
      await api.close();
      await rm(dir, { recursive: true, force: true });
      return leaks;
    },
  };
}
