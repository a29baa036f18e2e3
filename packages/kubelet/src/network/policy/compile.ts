// NetworkPolicy → one nftables table (pure). Level-triggered: the whole table is computed from
// the current Pods, Namespaces and policies and replaced in one transaction.
//
// Semantics (networking.k8s.io/v1): a Pod selected by a policy with policyType Egress (Ingress)
// is isolated for that direction and gets only the union of the allowed rules; other Pods are not
// restricted. Replies of allowed connections pass (conntrack). Node rules this node adds:
// - traffic from the node to its Pods is always allowed (probes, port-forward), as CNIs do;
// - an egress-isolated Pod reaches the node's own addresses (the API server, DNS, every host
//   port) only through an ipBlock that names them with a non-zero prefix: `0.0.0.0/0` means "the
//   internet", never the node (SandboxTemplate's default policy, api-and-controllers §14).
import type {
  LabelSelector,
  NetworkPolicy,
  NetworkPolicyPeer,
  NetworkPolicyPort,
} from '@agent-sandbox/kube-types';

export interface PolicyPod {
  namespace: string;
  name: string;
  labels: Record<string, string>;
  ip: string;
}

export interface PolicyNamespace {
  name: string;
  labels: Record<string, string>;
}

export interface PolicyInput {
  pods: readonly PolicyPod[];
  namespaces: readonly PolicyNamespace[];
  policies: readonly NetworkPolicy[];
}

/** matchLabels and matchExpressions (In, NotIn, Exists, DoesNotExist); empty selects all. */
export function selects(
  selector: LabelSelector | undefined,
  labels: Record<string, string>,
): boolean {
  if (!selector) return true;
  for (const [k, v] of Object.entries(selector.matchLabels ?? {}))
    if (labels[k] !== v) return false;
  for (const e of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, e.key);
    const values = e.values ?? [];
    switch (e.operator) {
      case 'In':
        if (!has || !values.includes(labels[e.key] as string)) return false;
        break;
      case 'NotIn':
        if (has && values.includes(labels[e.key] as string)) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        return false; // an unknown operator selects nothing, as apimachinery refuses it
    }
  }
  return true;
}

const isV6 = (cidr: string): boolean => cidr.includes(':');

function portMatches(ports: readonly NetworkPolicyPort[] | undefined): string[] {
  if (!ports || ports.length === 0) return [''];
  const out: string[] = [];
  for (const p of ports) {
    const proto = (p.protocol ?? 'TCP').toLowerCase();
    if (proto !== 'tcp' && proto !== 'udp' && proto !== 'sctp') continue;
    // Named ports need the target container's ports; they match nothing here (a stricter result).
    if (typeof p.port === 'string') continue;
    if (p.port === undefined) out.push(`meta l4proto ${proto}`);
    else out.push(`${proto} dport ${p.endPort ? `${p.port}-${p.endPort}` : p.port}`);
  }
  return out;
}

interface Compiled {
  /** The chain body lines that allow (each ends in `return`). */
  lines: string[];
}

function podsFor(peer: NetworkPolicyPeer, policyNs: string, input: PolicyInput): string[] {
  const nsLabels = new Map(input.namespaces.map((n) => [n.name, n.labels]));
  return input.pods
    .filter((p) => {
      if (peer.namespaceSelector) {
        if (!selects(peer.namespaceSelector, nsLabels.get(p.namespace) ?? {})) return false;
      } else if (p.namespace !== policyNs) return false;
      return selects(peer.podSelector, p.labels);
    })
    .map((p) => p.ip);
}

function peerMatches(
  peer: NetworkPolicyPeer,
  dir: 'saddr' | 'daddr',
  policyNs: string,
  input: PolicyInput,
  toNode: boolean,
): string[] {
  if (peer.ipBlock) {
    const { cidr, except = [] } = peer.ipBlock;
    // An ipBlock of prefix 0 is "anywhere outside": never the node itself.
    if (toNode && /\/0$/.test(cidr)) return [];
    const fam = isV6(cidr) ? 'ip6' : 'ip';
    const ex = except.filter((e) => isV6(e) === isV6(cidr));
    return [`${fam} ${dir} ${cidr}${ex.length ? ` ${fam} ${dir} != { ${ex.join(', ')} }` : ''}`];
  }
  if (toNode) return []; // the node is no Pod and in no namespace
  const ips = podsFor(peer, policyNs, input);
  return ips.length ? [`ip ${dir} { ${ips.join(', ')} }`] : [];
}

function allowLines(
  rules: readonly {
    peers: readonly NetworkPolicyPeer[] | undefined;
    ports: readonly NetworkPolicyPort[] | undefined;
  }[],
  dir: 'saddr' | 'daddr',
  policyNs: string,
  input: PolicyInput,
  toNode: boolean,
): Compiled {
  const lines: string[] = [];
  for (const rule of rules) {
    const peers =
      rule.peers && rule.peers.length > 0
        ? rule.peers.flatMap((p) => peerMatches(p, dir, policyNs, input, toNode))
        : [''];
    for (const peer of peers)
      for (const port of portMatches(rule.ports))
        lines.push(`${[peer, port].filter((s) => s !== '').join(' ')} return`.trimStart());
  }
  return { lines };
}

function policyTypes(p: NetworkPolicy): string[] {
  const spec = p.spec ?? {};
  if (spec.policyTypes && spec.policyTypes.length > 0) return spec.policyTypes;
  // The API's default: Ingress always, Egress when egress rules exist.
  return spec.egress && spec.egress.length > 0 ? ['Ingress', 'Egress'] : ['Ingress'];
}

/** The nft script that replaces `table inet <table>` with the rules for `input`. */
export function compilePolicyTable(table: string, input: PolicyInput): string {
  const forward: string[] = [];
  const hostInput: string[] = [];
  const chains: string[] = [];
  input.pods.forEach((pod, i) => {
    const applying = input.policies.filter(
      (p) =>
        (p.metadata?.namespace ?? 'default') === pod.namespace &&
        selects(p.spec?.podSelector ?? {}, pod.labels),
    );
    const egress = applying.filter((p) => policyTypes(p).includes('Egress'));
    const ingress = applying.filter((p) => policyTypes(p).includes('Ingress'));
    if (egress.length > 0) {
      const routed: string[] = [];
      const toNode: string[] = [];
      for (const p of egress) {
        const ns = p.metadata?.namespace ?? 'default';
        const rules = (p.spec?.egress ?? []).map((r) => ({ peers: r.to, ports: r.ports }));
        routed.push(...allowLines(rules, 'daddr', ns, input, false).lines);
        toNode.push(...allowLines(rules, 'daddr', ns, input, true).lines);
      }
      chains.push(chain(`egress_${i}`, pod, routed), chain(`node_${i}`, pod, toNode));
      forward.push(`    ip saddr ${pod.ip} jump egress_${i}`);
      hostInput.push(`    ip saddr ${pod.ip} jump node_${i}`);
    }
    if (ingress.length > 0) {
      const allowed: string[] = [];
      for (const p of ingress) {
        const ns = p.metadata?.namespace ?? 'default';
        const rules = (p.spec?.ingress ?? []).map((r) => ({ peers: r.from, ports: r.ports }));
        allowed.push(...allowLines(rules, 'saddr', ns, input, false).lines);
      }
      chains.push(chain(`ingress_${i}`, pod, allowed));
      forward.push(`    ip daddr ${pod.ip} jump ingress_${i}`);
    }
  });
  return [
    `table inet ${table}`,
    `delete table inet ${table}`,
    `table inet ${table} {`,
    '  chain forward {',
    '    type filter hook forward priority filter; policy accept;',
    '    ct state established,related accept',
    ...forward,
    '  }',
    '  chain input {',
    '    type filter hook input priority filter; policy accept;',
    '    ct state established,related accept',
    ...hostInput,
    '  }',
    ...chains,
    '}',
    '',
  ].join('\n');
}

function chain(name: string, pod: PolicyPod, allow: string[]): string {
  return [
    `  chain ${name} {`,
    `    # ${pod.namespace}/${pod.name}`,
    ...allow.map((l) => `    ${l}`),
    '    drop',
    '  }',
  ].join('\n');
}
