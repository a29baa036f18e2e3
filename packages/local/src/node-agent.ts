// The node agent as a component of the embedded mode: runc (default), gVisor and bubblewrap (the
// default where runc cannot run) where the machine runs them, the bridge Pod network with NetworkPolicy (loopback-only when the machine
// cannot, said in a `network` event), the streaming server the API server proxies pods/exec,
// attach, portforward and log to, images and pod state under <dataDir>, and a RuntimeClass per
// runtime this machine supports.
import {
  ImageService,
  ImageStore,
  NodeAgent,
  RegistryClient,
  RUNTIME_CLASSES,
  CGROUP_PARENT,
  hostNodeFacts,
  bwrapRuntime,
  runcRuntime,
  runscRuntime,
  runVolumeBinder,
  type NodeLogger,
} from '@agent-sandbox/kubelet';
import { KubeClient, isAlreadyExists } from '@agent-sandbox/kube';
import type { KubeObject } from '@agent-sandbox/kube-types';
import { join } from 'node:path';
import type { Component } from './component.ts';
import { nodeIdentity } from './identities.ts';
import { networkPrefix, startNodeNetwork, type NodeNetwork } from './node-network.ts';
import { startNodeStreaming, type NodeStreaming } from './node-streaming.ts';
import { hostNetworkPods } from './router.ts';
import { prepareSandboxd } from './sandboxd-injection.ts';

/** What the node agent reports on the way up and while running (library code prints nothing). */
export type NodeAgentEvent =
  /** The Pod network in use; `degraded` says what is missing when Pods get loopback only. */
  | { type: 'network'; mode: string; degraded?: string; nameserver?: string }
  | { type: 'streaming'; url: string }
  | { type: 'runtimes'; handlers: string[] }
  | { type: 'policy-sync-failed'; error: unknown }
  | { type: 'volume-sync-failed'; error: unknown };

export interface EmbeddedNodeAgentOptions {
  /** Node name (the CLI passes the host name). */
  nodeName: string;
  /** Holds images/, pods/, logs/, claims/, network/, pki/ and the runtimes' state. */
  dataDir: string;
  /** Pod CIDR of the bridge network. @default '10.88.0.0/16' */
  podCidr?: string;
  /** Host bridge name (≤ 15 characters); netns, veths, nft tables and cgroups are named after it. @default 'asb0' */
  bridge?: string;
  /** The host's resolver (`ip` or `ip:port`) cluster DNS relays other names to; absent: refused. */
  dnsUpstream?: string;
  /** Start the in-sandbox daemon in every Pod (sandboxd-injection.ts). @default true */
  sandboxd?: boolean;
  /** Let Pods mount host paths (`up --allow-host-path`): breaks isolation. @default false */
  allowHostPath?: boolean;
  log?: NodeLogger;
  onEvent?: (event: NodeAgentEvent) => void;
}

/** RuntimeClass name → handler, for the handlers this node can run. */
export const RUNTIME_CLASS_NAMES: Record<string, string> = {
  runc: 'runc',
  runsc: 'gvisor',
  bubblewrap: 'bubblewrap',
};

/**
 * The cgroup holding the node's `pod<uid>` cgroups: the kubelet's default for the default bridge,
 * else named after the bridge as the netns, veths and nft tables are. Two `up`s on one machine
 * differ in bridge, and must not meet in cgroups either: each removes the empty cgroups under its
 * parent at start and stop (one being created for another's container among them), and a leak
 * check of one counted the other's.
 */
export function nodeCgroupParent(bridge: string | undefined): string {
  const prefix = networkPrefix(bridge);
  return prefix === networkPrefix(undefined) ? CGROUP_PARENT : `${CGROUP_PARENT}-${prefix}`;
}

/** The data dir's image store, shared by the node agent and `agent-sandbox image`. */
export function nodeImageStore(dataDir: string): ImageStore {
  return new ImageStore(join(dataDir, 'images'));
}

export function nodeAgentComponent(o: EmbeddedNodeAgentOptions): Component {
  const emit = o.onEvent ?? (() => undefined);
  return {
    name: 'kubelet',
    identity: nodeIdentity(o.nodeName),
    async start(ctx) {
      const client = new KubeClient({
        config: ctx.apiServer.kubeConfig,
        fetch: ctx.apiServer.fetch,
      });
      const dir = o.dataDir;
      const undo: (() => Promise<void>)[] = [];
      const stopAll = async (): Promise<void> => {
        for (let u = undo.pop(); u; u = undo.pop()) await u();
      };
      try {
        const net: NodeNetwork = await startNodeNetwork(
          {
            stateDir: join(dir, 'network'),
            ...(o.podCidr !== undefined ? { podCidr: o.podCidr } : {}),
            ...(o.bridge !== undefined ? { bridge: o.bridge } : {}),
            ...(o.dnsUpstream !== undefined ? { dnsUpstream: o.dnsUpstream } : {}),
            onPoolError: (err) =>
              o.log?.warn({ err: String(err) }, 'making a pod network ahead failed'),
          },
          client,
          (error) => emit({ type: 'policy-sync-failed', error }),
        );
        undo.push(() => net.stop());
        emit({
          type: 'network',
          mode: net.network.mode,
          ...(net.degraded !== undefined ? { degraded: net.degraded } : {}),
          ...(net.nameserver !== undefined ? { nameserver: net.nameserver } : {}),
        });
        const injection =
          o.sandboxd === false
            ? undefined
            : await prepareSandboxd(dir).catch((err: unknown) => {
                o.log?.warn({ err: String(err) }, 'pods get no in-sandbox daemon');
                return undefined;
              });
        if (injection?.codeCacheOff !== undefined)
          o.log?.warn(
            { err: injection.codeCacheOff },
            'the in-sandbox daemon starts without its code cache',
          );
        const agent = new NodeAgent({
          client,
          facts: hostNodeFacts(o.nodeName),
          // runc is the default; bubblewrap takes its place where runc cannot run (ADR 0034).
          runtimes: [
            runcRuntime(join(dir, 'runc')),
            runscRuntime(join(dir, 'runsc')),
            bwrapRuntime(join(dir, 'bwrap')),
          ],
          network: net.network,
          images: new ImageService(nodeImageStore(dir), new RegistryClient()),
          dataDir: dir,
          cgroupParent: nodeCgroupParent(o.bridge),
          allowHostPath: o.allowHostPath === true,
          ...(injection
            ? { extraReadOnlyMounts: injection.mounts, podDaemon: injection.daemon }
            : {}),
          ...(o.log ? { log: o.log } : {}),
        });
        await agent.start();
        undo.push(() => agent.stop());
        emit({ type: 'runtimes', handlers: agent.handlers });
        // PVCs get a PV backed by <dataDir>/claims/<claim uid>, bound as kube's PV controller does.
        const binder = new AbortController();
        const binding = runVolumeBinder(
          {
            client,
            claimsDir: join(dir, 'claims'),
            nodeName: agent.name,
            onError: (error) => emit({ type: 'volume-sync-failed', error }),
          },
          binder.signal,
        );
        undo.push(async () => {
          binder.abort();
          await binding;
        });
        await createRuntimeClasses(client, agent.handlers);
        const streaming: NodeStreaming = await startNodeStreaming(hostNetworkPods(agent), {
          nodeName: agent.name,
          pkiDir: join(dir, 'pki'),
          registry: ctx.nodeStreams,
          ...(o.log ? { log: o.log } : {}),
        });
        undo.push(() => streaming.stop());
        emit({ type: 'streaming', url: streaming.url });
      } catch (err: unknown) {
        await stopAll();
        throw err;
      }
      let stopped: () => void = () => undefined;
      const done = new Promise<void>((r) => (stopped = r));
      let stopping: Promise<void> | undefined;
      return {
        done,
        stop: () =>
          (stopping ??= stopAll().then(() => {
            stopped();
          })),
      };
    },
  };
}

async function createRuntimeClasses(client: KubeClient, handlers: string[]): Promise<void> {
  for (const handler of handlers) {
    const rc = {
      apiVersion: 'node.k8s.io/v1',
      kind: 'RuntimeClass',
      metadata: { name: RUNTIME_CLASS_NAMES[handler] ?? handler },
      handler,
    };
    await client.create(RUNTIME_CLASSES, rc as KubeObject).catch((e: unknown) => {
      if (!isAlreadyExists(e)) throw e;
    });
  }
}
