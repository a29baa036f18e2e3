// The embedded node's Pod network: the bridge network with cluster DNS on its gateway address and
// NetworkPolicy enforced when this machine allows it, else the loopback-only fallback with the reason (`degraded`), which `up`
// prints loudly. Stopping removes what the network put on the host (policy table, bridge, NAT).
import {
  BridgePodNetwork,
  createPodNetwork,
  gatewayOf,
  PolicyEnforcer,
  runPolicySync,
  startClusterDns,
  type PodNetwork,
} from '@agent-sandbox/kubelet';
import type { KubeClient } from '@agent-sandbox/kube';

export interface NodeNetworkOptions {
  /** Holds ipam.json. */
  stateDir: string;
  /** @default '10.88.0.0/16' */
  podCidr?: string;
  /** Host bridge (at most 15 characters); also names the netns/veth prefix and nft tables. @default 'asb0' */
  bridge?: string;
  /** The host's resolver for names outside the cluster domain (`ip` or `ip:port`). */
  dnsUpstream?: string;
  /** Hears a failed refill of the Pod networks made ahead (cold starts then make their own). */
  onPoolError?: (err: unknown) => void;
}

/**
 * Pod networks kept made ahead (netns-pool.ts): two covers a burst of two cold starts, each
 * costs a netns and a veth pair on the host while it waits.
 */
const NETNS_POOL_SIZE = 2;
/** After a burst of cold starts the pool keeps as many as the burst took, up to this. */
const NETNS_POOL_MAX = 4;

export interface NodeNetwork {
  network: PodNetwork;
  /** Set when Pods get loopback only: what is missing and how to fix it. */
  degraded?: string;
  /** The cluster DNS address Pods get in resolv.conf (bridge only). */
  nameserver?: string;
  /** Stops enforcing and removes the policy table, bridge and NAT table. Never rejects. */
  stop(): Promise<void>;
}

const DEFAULT_POD_CIDR = '10.88.0.0/16';

/** netns/veth prefix for a bridge: `asb` for the default bridge, else the bridge name. */
export function networkPrefix(bridge: string | undefined): string {
  return bridge === undefined || bridge === 'asb0' ? 'asb' : bridge;
}

/**
 * Picks the network and, for the bridge, starts enforcing NetworkPolicy from the API at once
 * (before any Pod runs); `onPolicyError` hears failed passes, which the next event or period retries.
 */
export async function startNodeNetwork(
  o: NodeNetworkOptions,
  client: KubeClient,
  onPolicyError: (err: unknown) => void,
): Promise<NodeNetwork> {
  const prefix = networkPrefix(o.bridge);
  const nameserver = gatewayOf(o.podCidr ?? DEFAULT_POD_CIDR);
  const choice = await createPodNetwork({
    stateDir: o.stateDir,
    podCidr: o.podCidr ?? DEFAULT_POD_CIDR,
    ...(o.bridge !== undefined ? { bridge: o.bridge } : {}),
    prefix,
    nameserver,
    poolSize: NETNS_POOL_SIZE,
    poolMaxSize: NETNS_POOL_MAX,
    ...(o.onPoolError !== undefined ? { onPoolError: o.onPoolError } : {}),
  });
  const net = choice.network;
  if (!(net instanceof BridgePodNetwork))
    return {
      network: net,
      ...(choice.degraded !== undefined ? { degraded: choice.degraded } : {}),
      stop: () => Promise.resolve(),
    };
  await net.ensureBridge();
  const dns = await startClusterDns({
    client,
    host: nameserver,
    ...(o.dnsUpstream !== undefined ? { upstream: o.dnsUpstream } : {}),
  }).catch(async (err: unknown) => {
    await net.destroy().catch(() => undefined);
    throw err;
  });
  const enforcer = new PolicyEnforcer({
    client,
    table: `${prefix}_policy_${net.bridge}`.replace(/[^a-zA-Z0-9_]/g, '_'),
    podIps: () => net.ipam.entries(),
  });
  const abort = new AbortController();
  const running = runPolicySync(
    { client, sync: () => enforcer.sync(), onError: onPolicyError },
    abort.signal,
  );
  return {
    network: net,
    nameserver,
    async stop() {
      abort.abort();
      await running;
      await dns.stop();
      await enforcer.remove().catch(() => undefined);
      await net.destroy().catch(() => undefined);
    },
  };
}
