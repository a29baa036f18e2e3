// kube-apiserver's Node authorizer (`--authorization-mode=Node,RBAC`), in its spirit: a node
// (user `system:node:<name>` in group `system:nodes`) reads what any kubelet reads, writes only
// its own Node, Lease and the Pods bound to it, and reads a Secret, ConfigMap or
// PersistentVolumeClaim, or asks for a ServiceAccount's token, only when a Pod bound to it uses
// that object. Everything else is no opinion, left to RBAC. Pure over a NodeGraph.
import type { ResourceAttributes, Attributes, UserInfo } from './policy.ts';

export const NODES_GROUP = 'system:nodes';
const NODE_PREFIX = 'system:node:';

/** What a Pod bound to a node references, as the graph keeps it. */
export interface BoundPod {
  name: string;
  namespace: string;
  serviceAccountName: string;
  secrets: readonly string[];
  configMaps: readonly string[];
  persistentVolumeClaims: readonly string[];
}

/** The Pods bound to a node. */
export interface NodeGraph {
  /** Pods with spec.nodeName == `node` in `namespace`. */
  podsOn(node: string, namespace: string): readonly BoundPod[];
}

export type NodeDecision = { allowed: true } | { allowed: false; reason: string };

const NO_OPINION: NodeDecision = { allowed: false, reason: '' };
const ALLOW: NodeDecision = { allowed: true };
const READ = new Set(['get', 'list', 'watch']);

/** The node a user is, or undefined for any other user (kube's NodeIdentifier). */
export function nodeName(user: UserInfo): string | undefined {
  if (!user.groups.includes(NODES_GROUP) || !user.username.startsWith(NODE_PREFIX))
    return undefined;
  const name = user.username.slice(NODE_PREFIX.length);
  return name === '' ? undefined : name;
}

/** What every kubelet may do without a relationship (kube's bootstrap NodeRules, trimmed). */
function commonRule(a: ResourceAttributes): boolean {
  const { apiGroup: g, resource: r, verb: v } = a;
  const sub = a.subresource ?? '';
  if (sub !== '') return false;
  if (g === '' && ['pods', 'services', 'endpoints', 'nodes'].includes(r)) return READ.has(v);
  if (g === 'node.k8s.io' && r === 'runtimeclasses') return READ.has(v);
  if ((g === '' || g === 'events.k8s.io') && r === 'events')
    return ['create', 'patch', 'update'].includes(v);
  if (g === 'authentication.k8s.io' && r === 'tokenreviews') return v === 'create';
  if (g === 'authorization.k8s.io' && r === 'subjectaccessreviews') return v === 'create';
  return false;
}

const relationship = (node: string): NodeDecision => ({
  allowed: false,
  reason: `no relationship found between node '${node}' and this object`,
});

/** Secrets, ConfigMaps and PVCs: one object at a time, when a bound Pod uses it. */
function referenced(graph: NodeGraph, node: string, a: ResourceAttributes): NodeDecision {
  if (!READ.has(a.verb)) return { allowed: false, reason: 'can only read resources of this type' };
  if (a.name === undefined || a.namespace === undefined)
    return { allowed: false, reason: 'can only get individual resources of this type' };
  const name = a.name;
  const uses = (p: BoundPod): boolean =>
    a.resource === 'secrets'
      ? p.secrets.includes(name)
      : a.resource === 'configmaps'
        ? p.configMaps.includes(name)
        : p.persistentVolumeClaims.includes(name);
  return graph.podsOn(node, a.namespace).some(uses) ? ALLOW : relationship(node);
}

function serviceAccountToken(graph: NodeGraph, node: string, a: ResourceAttributes): NodeDecision {
  if (a.verb !== 'create' || a.name === undefined || a.namespace === undefined)
    return { allowed: false, reason: 'can only create tokens for individual service accounts' };
  const name = a.name;
  const used = graph.podsOn(node, a.namespace).some((p) => p.serviceAccountName === name);
  return used ? ALLOW : relationship(node);
}

/** Writes to Pods (status, deletion, the embedded mode's binding): only those bound here. */
function podWrite(graph: NodeGraph, node: string, a: ResourceAttributes): NodeDecision {
  const sub = a.subresource ?? '';
  const write =
    (sub === 'status' && ['update', 'patch'].includes(a.verb)) ||
    (sub === '' && a.verb === 'delete');
  if (!write || a.name === undefined || a.namespace === undefined) return NO_OPINION;
  const name = a.name;
  return graph.podsOn(node, a.namespace).some((p) => p.name === name) ? ALLOW : relationship(node);
}

function ownNode(node: string, a: ResourceAttributes): NodeDecision {
  const sub = a.subresource ?? '';
  if (sub !== '' && sub !== 'status') return NO_OPINION;
  if (sub === '' && a.verb === 'create') return ALLOW;
  if (!['get', 'update', 'patch', 'delete'].includes(a.verb)) return NO_OPINION;
  return a.name === node ? ALLOW : relationship(node);
}

function ownLease(node: string, a: ResourceAttributes): NodeDecision {
  if (a.namespace !== 'kube-node-lease' || a.subresource !== undefined) return NO_OPINION;
  if (!['get', 'create', 'update', 'patch', 'delete'].includes(a.verb)) return NO_OPINION;
  if (a.verb === 'create' || a.name === node) return ALLOW;
  return {
    allowed: false,
    reason: 'can only access node lease with the same name as the requesting node',
  };
}

/** The Node authorizer's answer for `a`; `allowed: false` is no opinion (RBAC decides next). */
export function authorizeNode(graph: NodeGraph, a: Attributes): NodeDecision {
  const node = nodeName(a.user);
  if (node === undefined || !a.resourceRequest) return NO_OPINION;
  if (a.apiGroup === '') {
    if (['secrets', 'configmaps', 'persistentvolumeclaims'].includes(a.resource))
      return a.subresource === undefined ? referenced(graph, node, a) : NO_OPINION;
    if (a.resource === 'serviceaccounts' && a.subresource === 'token')
      return serviceAccountToken(graph, node, a);
    if (a.resource === 'pods' && (a.subresource !== undefined || a.verb === 'delete'))
      return podWrite(graph, node, a);
    if (a.resource === 'nodes' && !READ.has(a.verb)) return ownNode(node, a);
    if (a.resource === 'nodes' && a.subresource === 'status') return ownNode(node, a);
  }
  if (a.apiGroup === 'coordination.k8s.io' && a.resource === 'leases') return ownLease(node, a);
  return commonRule(a) ? ALLOW : NO_OPINION;
}
