// Applies NetworkPolicy on this node: lists Pods, Namespaces and NetworkPolicies from the API,
// pairs Pods with the IPs this node gave them, compiles one nft table and replaces it when it
// changed. Level-triggered: `sync()` converges from the current state, however often it runs.
import type { KubeObject, NetworkPolicy } from '@agent-sandbox/kube-types';
import { NAMESPACES, PODS, type KubeClient, type ResourceRef } from '@agent-sandbox/kube';
import { runCommand } from '../../host/run-command.ts';
import { nft } from '../host-commands.ts';
import { compilePolicyTable, type PolicyInput, type PolicyPod } from './compile.ts';

export const NETWORK_POLICIES: ResourceRef = {
  group: 'networking.k8s.io',
  version: 'v1',
  plural: 'networkpolicies',
  kind: 'NetworkPolicy',
  namespaced: true,
};

export interface PolicyEnforcerOptions {
  client: KubeClient;
  /** The nft table this enforcer owns (inet family). */
  table: string;
  /** Pod uid → IP of the Pods this node networks (BridgePodNetwork.ipam). */
  podIps(): Iterable<[string, string]>;
}

/**
 * Contract: `sync()` makes the nft table match the API's current NetworkPolicies for the Pods of
 * `podIps()`; it rejects with KubeletError `Network` when nft refuses the table (the old table
 * stays) and with the client's error when the API cannot be read. `remove()` deletes the table.
 */
export class PolicyEnforcer {
  #applied: string | undefined;

  constructor(readonly options: PolicyEnforcerOptions) {}

  async sync(): Promise<void> {
    const script = compilePolicyTable(this.options.table, await this.#input());
    if (script === this.#applied) return;
    await nft(script, `apply NetworkPolicy table ${this.options.table}`);
    this.#applied = script;
  }

  async remove(): Promise<void> {
    this.#applied = undefined;
    await runCommand('nft', ['delete', 'table', 'inet', this.options.table]);
  }

  async #input(): Promise<PolicyInput> {
    const { client } = this.options;
    const [pods, namespaces, policies] = await Promise.all([
      client.list<KubeObject>(PODS),
      client.list<KubeObject>(NAMESPACES),
      client.list<NetworkPolicy & KubeObject>(NETWORK_POLICIES),
    ]);
    const ips = new Map(this.options.podIps());
    const policyPods: PolicyPod[] = [];
    for (const p of pods.items) {
      const ip = ips.get(p.metadata.uid ?? '');
      if (!ip) continue;
      policyPods.push({
        namespace: p.metadata.namespace ?? 'default',
        name: p.metadata.name ?? '',
        labels: p.metadata.labels ?? {},
        ip,
      });
    }
    return {
      pods: policyPods,
      namespaces: namespaces.items.map((n) => ({
        name: n.metadata.name ?? '',
        labels: n.metadata.labels ?? {},
      })),
      policies: policies.items,
    };
  }
}
