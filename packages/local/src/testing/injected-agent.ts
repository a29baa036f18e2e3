// A node agent with the in-sandbox daemon injected, as `up` runs it, over a test API server and
// the busybox test image, under runc, gVisor and bubblewrap: the world of the suites that check
// what the injection gives a Pod (sandboxd-injection.int, node-exec.int). With `streaming`, the
// node's streaming server serves the API server's pod streams and nodes/proxy as in `up`, so
// real kubectl can exec (and read the node's /metrics) against `kubeconfigPath`.
import { NodeStreamProxy } from '@agent-sandbox/apiserver';
import { startTestApiServer, type TestApiServer } from '@agent-sandbox/apiserver/testing';
import { KubeClient, kubeConfigFromFile } from '@agent-sandbox/kube';
import {
  ImageService,
  ImageStore,
  LoopbackPodNetwork,
  NodeAgent,
  RegistryClient,
  bwrapRuntime,
  hostNodeFacts,
  loadOciLayout,
  runcRuntime,
  runscRuntime,
  type PodDaemon,
} from '@agent-sandbox/kubelet';
import { buildTestImage, createRuntimeClass, findLeaks } from '@agent-sandbox/kubelet/testing';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNodeStreaming, type NodeStreaming } from '../node-streaming.ts';
import { NodeStreamDirectory } from '../node-streams.ts';
import { prepareSandboxd } from '../sandboxd-injection.ts';

export const INJECTED_AGENT_IMAGE = 'localhost/test/busybox:v1';

export interface InjectedAgentWorld {
  /** The temp directory holding the image store, the node's data dir and runtime state. */
  dir: string;
  api: TestApiServer;
  client: KubeClient;
  agent: NodeAgent;
  daemon: PodDaemon;
  /** The Node's name (`node-<name>`). */
  nodeName: string;
  /** The agent's own cgroup parent (`asb-<name>`): no other agent on the machine uses it. */
  cgroupParent: string;
  /** Stops everything and removes the dir; answers what the leak check found of this world. */
  stop(): Promise<string[]>;
}

export interface InjectedAgentOptions {
  /** Serve the node's streaming API through the API server (kubectl exec, nodes/proxy). */
  streaming?: boolean;
  /** NodeAgentOptions.allowHostPath. @default false */
  allowHostPath?: boolean;
}

/**
 * `name` names the node (`node-<name>`), the temp dir, the netns prefix (`asb-lo-<name>-`) and
 * the cgroup parent (`asb-<name>`, as `up` and bench:node give each agent its own): suites run
 * agents at once, and an agent cleans its whole parent at start and stop.
 */
export async function startInjectedAgent(
  name: string,
  options: InjectedAgentOptions = {},
): Promise<InjectedAgentWorld> {
  const dir = await mkdtemp(join(tmpdir(), `asb-${name}-`));
  const netnsPrefix = `asb-lo-${name}-`;
  const cgroupParent = `asb-${name}`;
  const directory = new NodeStreamDirectory();
  const api = await startTestApiServer(
    options.streaming ? { podStreams: new NodeStreamProxy({ locate: directory.locate }) } : {},
  );
  const client = new KubeClient({ config: kubeConfigFromFile(api.kubeconfigPath) });
  const store = new ImageStore(join(dir, 'images'));
  const image = await buildTestImage(join(dir, 'build'));
  await loadOciLayout(store, image.layoutDir, INJECTED_AGENT_IMAGE);
  const injection = await prepareSandboxd(join(dir, 'node'));
  const runtimeStateDirs = [join(dir, 'runc'), join(dir, 'runsc'), join(dir, 'bwrap')];
  const agent = new NodeAgent({
    client,
    facts: hostNodeFacts(`node-${name}`),
    runtimes: [
      runcRuntime(join(dir, 'runc')),
      runscRuntime(join(dir, 'runsc')),
      bwrapRuntime(join(dir, 'bwrap')),
    ],
    cgroupParent,
    network: new LoopbackPodNetwork({ prefix: netnsPrefix }),
    images: new ImageService(store, new RegistryClient()),
    dataDir: join(dir, 'node'),
    backoffBaseMs: 200,
    extraReadOnlyMounts: injection.mounts,
    podDaemon: injection.daemon,
    allowHostPath: options.allowHostPath ?? false,
  });
  await agent.start();
  const streaming: NodeStreaming | undefined = options.streaming
    ? await startNodeStreaming(agent, {
        nodeName: `node-${name}`,
        pkiDir: join(dir, 'pki'),
        registry: directory,
      })
    : undefined;
  await createRuntimeClass(client, 'gvisor', 'runsc');
  await createRuntimeClass(client, 'bubblewrap', 'bubblewrap');
  const stop = async (): Promise<string[]> => {
    await streaming?.stop();
    await agent.stop();
    const leaks = findLeaks({ dataDir: dir, runtimeStateDirs, netnsPrefix, cgroupParent });
    await client.close();
    await api.close();
    await rm(dir, { recursive: true, force: true });
    return leaks;
  };
  return {
    dir,
    api,
    client,
    agent,
    daemon: injection.daemon,
    nodeName: `node-${name}`,
    cgroupParent,
    stop,
  };
}
