// Picks the Pod network this machine can give: the bridge network when the agent may create
// bridges, veths and nft tables (root with iproute2 and nftables), else the loopback-only network
// with the reason in its mode, so `up` can say loudly what is missing.
import { runCommand } from '../host/run-command.ts';
import { BridgePodNetwork, type BridgePodNetworkOptions } from './bridge-network.ts';
import { LoopbackPodNetwork } from './loopback-network.ts';
import type { PodNetwork } from './pod-network.ts';

export interface PodNetworkChoice {
  network: PodNetwork;
  /** Set when the bridge network could not be used: what is missing and how to fix it. */
  degraded?: string;
}

/** Why the bridge network cannot run here, or undefined when it can. */
export async function bridgeUnavailableReason(): Promise<string | undefined> {
  if (process.getuid?.() !== 0)
    return 'the node agent is not root (bridge, veth and nftables need root)';
  if ((await runCommand('ip', ['-V'])).code === 127) return 'ip is missing (install iproute2)';
  if ((await runCommand('nft', ['--version'])).code === 127)
    return 'nft is missing (install nftables)';
  const r = await runCommand('nft', ['list', 'tables']);
  if (r.code !== 0) return `nft cannot list tables: ${r.stderr.trim()}`;
  return undefined;
}

export async function createPodNetwork(
  options: BridgePodNetworkOptions,
): Promise<PodNetworkChoice> {
  const reason = await bridgeUnavailableReason();
  if (reason === undefined) return { network: new BridgePodNetwork(options) };
  return { network: new LoopbackPodNetwork(), degraded: `no pod IPs, no NetworkPolicy: ${reason}` };
}
