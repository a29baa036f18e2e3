// A Pod's resolv.conf as kubelet builds it from spec.dnsPolicy and spec.dnsConfig (pure):
// ClusterFirst (the default) uses the node's cluster DNS when it has one, else falls back to
// Default; Default uses the node's own resolver settings when known; None uses dnsConfig alone.
// dnsConfig's nameservers and searches are appended (no duplicates), its options override by name.
import type { Pod } from '@agent-sandbox/kube-types';
import type { PodNetworkStatus } from '../pod-network.ts';

export type ResolvConf = NonNullable<PodNetworkStatus['dns']>;

/** kubelet's limits (validation allows at most 3 nameservers and 32 search domains). */
const MAX_NAMESERVERS = 3;
const MAX_SEARCHES = 32;

const unique = (xs: string[]): string[] => [...new Set(xs)];

function mergeOptions(base: string[], extra: { name?: string; value?: string }[]): string[] {
  const byName = new Map(base.map((o) => [o.split(':')[0] ?? o, o]));
  for (const o of extra) {
    if (!o.name) continue;
    byName.set(o.name, o.value !== undefined ? `${o.name}:${o.value}` : o.name);
  }
  return [...byName.values()];
}

/**
 * @param cluster the cluster DNS settings of the Pod network (absent: no cluster DNS)
 * @param host the node's own resolver settings (absent: unknown; Default then yields none)
 * @returns the resolv.conf to write, or undefined to keep the image's own
 */
export function podResolvConf(
  pod: Pod,
  cluster: ResolvConf | undefined,
  host?: ResolvConf,
): ResolvConf | undefined {
  const policy = pod.spec?.dnsPolicy ?? 'ClusterFirst';
  let base: ResolvConf | undefined;
  if (policy === 'None') base = { nameservers: [], searches: [], options: [] };
  else if (policy === 'Default') base = host;
  else base = cluster ?? host;
  const config = pod.spec?.dnsConfig;
  if (!config) return base;
  const b = base ?? { nameservers: [], searches: [], options: [] };
  return {
    nameservers: unique([...b.nameservers, ...(config.nameservers ?? [])]).slice(
      0,
      MAX_NAMESERVERS,
    ),
    searches: unique([...b.searches, ...(config.searches ?? [])]).slice(0, MAX_SEARCHES),
    options: mergeOptions(b.options, config.options ?? []),
  };
}
