// The world of the node agent's integration tests: our embedded API server, the busybox test
// image loaded into a fresh image store, and one NodeAgent with real runtimes on a temp dir of its
// own; close() stops it all and returns what the agent left of the machine (leak-check.ts).
// eslint-disable-next-line no-restricted-imports -- tests run on the embedded apiserver (our envtest)
import { startTestApiServer, type TestApiServer } from '@agent-sandbox/apiserver/testing';
import { KubeClient, kubeConfigFromFile } from '@agent-sandbox/kube';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ImageService } from '../images/image-service.ts';
import { ImageStore } from '../images/image-store.ts';
import { loadOciLayout } from '../images/oci-layout.ts';
import { RegistryClient } from '../images/registry-client.ts';
import { LoopbackPodNetwork } from '../network/loopback-network.ts';
import type { PodNetwork } from '../network/pod-network.ts';
import { hostNodeFacts } from '../node/host-facts.ts';
import { NodeAgent, type NodeAgentOptions } from '../node/node-agent.ts';
import { bwrapRuntime } from '../runtime/bwrap-runtime.ts';
import type { ContainerRuntime } from '../runtime/container-runtime.ts';
import { runcRuntime, runscRuntime } from '../runtime/runc-runtime.ts';
import { findLeaks } from './leak-check.ts';
import { TEST_IMAGE } from './test-pod.ts';
import { buildTestImage } from './test-image.ts';

export { TEST_IMAGE };

const RUNTIMES = {
  runc: (dir: string) => runcRuntime(join(dir, 'runc')),
  runsc: (dir: string) => runscRuntime(join(dir, 'runsc')),
  bubblewrap: (dir: string) => bwrapRuntime(join(dir, 'bwrap')),
} as const satisfies Record<string, (dir: string) => ContainerRuntime>;
const STATE_DIRS: Record<keyof typeof RUNTIMES, string> = {
  runc: 'runc',
  runsc: 'runsc',
  bubblewrap: 'bwrap',
};

export interface NodeWorldOptions {
  /**
   * Names everything of this world apart from other suites' on the machine: node `node-<tag>`,
   * temp dir `asb-<tag>-*`, netns `asb-lo-<tag>-<pid>-*`, cgroup parent `asb-<tag>-<pid>` — with
   * the pid, two runs of one suite at once neither clean up nor check each other's.
   */
  tag: string;
  /** The first is the default. @default ['runc'] */
  runtimes?: readonly (keyof typeof RUNTIMES)[];
  /** More of the agent's options. */
  agent?: Pick<
    NodeAgentOptions,
    | 'pidsLimit'
    | 'backoffBaseMs'
    | 'sandboxRetryBaseMs'
    | 'allowHostPath'
    | 'podDaemon'
    | 'onPhase'
    | 'earlyCreate'
  >;
  /**
   * A Pod network other than the loopback one, made in the world's dir, with what the leak
   * check looks for (its netns, links and nft tables). @default LoopbackPodNetwork
   */
  network?: {
    make(dir: string): PodNetwork;
    netnsPrefix: string;
    linkPrefix: string;
    nftPrefix: string;
    /** Run after the agent stopped (a bridge network's destroy()). */
    close(): Promise<void>;
  };
}

export interface NodeWorld {
  api: TestApiServer;
  /** The admin's client. */
  client: KubeClient;
  /** The temp dir: images/, build/, one state dir per runtime and the agent's node/. */
  dir: string;
  agent: NodeAgent;
  nodeName: string;
  /** The agent's cgroup parent (this run's own). */
  cgroupParent: string;
  /** Stops the agent and the server and removes the dir; returns what the agent left behind. */
  close(): Promise<string[]>;
}

export async function startNodeWorld(o: NodeWorldOptions): Promise<NodeWorld> {
  const runtimes = o.runtimes ?? ['runc'];
  const nodeName = `node-${o.tag}`;
  const run = `${o.tag}-${process.pid}`;
  const netnsPrefix = o.network?.netnsPrefix ?? `asb-lo-${run}-`;
  const cgroupParent = `asb-${run}`;
  const dir = await mkdtemp(join(tmpdir(), `asb-${o.tag}-`));
  let api: TestApiServer | undefined;
  let agent: NodeAgent | undefined;
  try {
    api = await startTestApiServer();
    const client = new KubeClient({ config: kubeConfigFromFile(api.kubeconfigPath) });
    const store = new ImageStore(join(dir, 'images'));
    await loadOciLayout(store, (await buildTestImage(join(dir, 'build'))).layoutDir, TEST_IMAGE);
    agent = new NodeAgent({
      client,
      facts: hostNodeFacts(nodeName),
      runtimes: runtimes.map((r) => RUNTIMES[r](dir)),
      cgroupParent,
      network: o.network?.make(dir) ?? new LoopbackPodNetwork({ prefix: netnsPrefix }),
      images: new ImageService(store, new RegistryClient()),
      dataDir: join(dir, 'node'),
      ...o.agent,
    });
    await agent.start();
    return world(
      { api, client, dir, agent, nodeName, cgroupParent },
      { runtimes, netnsPrefix, cgroupParent, network: o.network },
    );
  } catch (err: unknown) {
    await agent?.stop();
    await o.network?.close();
    await api?.close();
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}

function world(
  parts: Omit<NodeWorld, 'close'>,
  names: {
    runtimes: readonly (keyof typeof RUNTIMES)[];
    netnsPrefix: string;
    cgroupParent: string;
    network: NodeWorldOptions['network'];
  },
): NodeWorld {
  const { api, client, dir, agent } = parts;
  return {
    ...parts,
    close: async () => {
      await agent.stop();
      await names.network?.close();
      const leaks = findLeaks({
        dataDir: dir,
        runtimeStateDirs: names.runtimes.map((r) => join(dir, STATE_DIRS[r])),
        netnsPrefix: names.netnsPrefix,
        cgroupParent: names.cgroupParent,
        ...(names.network
          ? { linkPrefix: names.network.linkPrefix, nftPrefix: names.network.nftPrefix }
          : {}),
      });
      await client.close();
      await api.close();
      await rm(dir, { recursive: true, force: true });
      return leaks;
    },
  };
}
