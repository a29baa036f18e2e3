// Escalation and bind prevention (kube's policy-based RBAC storage): a user may write a Role or
// ClusterRole only with rules they already hold in that scope (or the `escalate` verb on it), and
// a RoleBinding or ClusterRoleBinding only to a role whose rules they hold (or the `bind` verb on
// it). system:masters skips both. An aggregationRule needs full authority. Pure over PolicySource.
import type { Status } from '@agent-sandbox/kube-types';
import { ApiError } from '../errors.ts';
import {
  compactRules,
  compactString,
  goQuoteList,
  uncovered,
  type PolicyRule,
  type RoleRef,
  type UserInfo,
} from './policy.ts';
import {
  aggregate,
  authorize,
  roleRefRules,
  rulesFor,
  SYSTEM_MASTERS,
  type PolicySource,
} from './resolver.ts';

const RBAC_GROUP = 'rbac.authorization.k8s.io';
const FULL_AUTHORITY: PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

export interface RbacWrite {
  user: UserInfo;
  /** roles, clusterroles, rolebindings or clusterrolebindings. */
  resource: string;
  /** The request's namespace ('' for cluster-scoped objects). */
  namespace: string;
  name: string;
  /** The name in the request path ('' for a create). */
  requestName: string;
  obj: Record<string, unknown>;
  old?: Record<string, unknown>;
}

function forbiddenStatus(resource: string, name: string, why: string): ApiError {
  const status: Status = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `${resource}.${RBAC_GROUP} ${JSON.stringify(name)} is forbidden: ${why}`,
    reason: 'Forbidden',
    details: { name, group: RBAC_GROUP, kind: resource },
    code: 403,
  };
  return new ApiError(status);
}

/** kube's ConfirmNoEscalation: undefined when the user holds every rule, else why not. */
export function escalationError(
  p: PolicySource,
  user: UserInfo,
  namespace: string,
  rules: readonly PolicyRule[],
): string | undefined {
  const owned = rulesFor(p, user, namespace);
  const missing = uncovered(owned.rules, rules);
  if (missing.length === 0) return undefined;
  const lines = [...new Set(compactRules(missing).map(compactString))].sort();
  let msg = `user ${JSON.stringify(user.username)} (groups=${goQuoteList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${lines.join('\n')}`;
  if (owned.errors.length > 0) msg += `; resolution errors: [${aggregate(owned.errors)}]`;
  return msg;
}

function allowedVerb(p: PolicySource, w: RbacWrite, verb: string, resource: string, name: string) {
  return authorize(p, {
    user: w.user,
    resourceRequest: true,
    verb,
    apiGroup: RBAC_GROUP,
    apiVersion: '*',
    resource,
    name,
    ...(w.namespace !== '' ? { namespace: w.namespace } : {}),
  }).allowed;
}

function rulesOf(obj: Record<string, unknown> | undefined): PolicyRule[] {
  return Array.isArray(obj?.['rules']) ? (obj['rules'] as PolicyRule[]) : [];
}

function hasAggregationRule(obj: Record<string, unknown> | undefined): boolean {
  const rule = obj?.['aggregationRule'] as { clusterRoleSelectors?: unknown[] } | undefined;
  return (rule?.clusterRoleSelectors?.length ?? 0) > 0;
}

/** Only the fields the garbage collector edits changed (kube's IsOnlyMutatingGCFields). */
function onlyGcFields(obj: Record<string, unknown>, old: Record<string, unknown>): boolean {
  const strip = (o: Record<string, unknown>) => {
    const meta = { ...(o['metadata'] as Record<string, unknown>) };
    for (const k of ['ownerReferences', 'finalizers', 'resourceVersion', 'managedFields'])
      delete meta[k];
    return JSON.stringify({ ...o, metadata: meta });
  };
  return strip(obj) === strip(old);
}

/** Throws kube's 403 when the write would grant what the user does not hold. */
export function checkRbacWrite(p: PolicySource, w: RbacWrite): void {
  if (w.user.groups.includes(SYSTEM_MASTERS)) return;
  if (w.old && onlyGcFields(w.obj, w.old)) return;
  if (w.resource === 'roles' || w.resource === 'clusterroles') {
    // kube asks with the request's name, which a create (POST to the collection) has not.
    if (allowedVerb(p, w, 'escalate', w.resource, w.requestName)) return;
    const why = escalationError(p, w.user, w.namespace, rulesOf(w.obj));
    if (why !== undefined) throw forbiddenStatus(w.resource, w.name, why);
    if (
      w.resource === 'clusterroles' &&
      (hasAggregationRule(w.obj) || hasAggregationRule(w.old)) &&
      escalationError(p, w.user, w.namespace, FULL_AUTHORITY) !== undefined
    )
      throw forbiddenStatus(
        w.resource,
        w.name,
        'must have cluster-admin privileges to use the aggregationRule',
      );
    return;
  }
  if (w.resource !== 'rolebindings' && w.resource !== 'clusterrolebindings') return;
  const ref = w.obj['roleRef'] as RoleRef | undefined;
  if (!ref || (ref.kind !== 'Role' && ref.kind !== 'ClusterRole')) return;
  const refResource = ref.kind === 'Role' ? 'roles' : 'clusterroles';
  if (allowedVerb(p, w, 'bind', refResource, ref.name)) return;
  const resolved = roleRefRules(p, ref, w.namespace);
  if ('error' in resolved) throw roleNotFound(w.resource, ref.name);
  const why = escalationError(p, w.user, w.namespace, resolved.rules);
  if (why !== undefined) throw forbiddenStatus(w.resource, w.name, why);
}

/** kube reports a missing role under the binding's resource, named like the role. */
function roleNotFound(resource: string, name: string): ApiError {
  const status: Status = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `${resource}.${RBAC_GROUP} ${JSON.stringify(name)} not found`,
    reason: 'NotFound',
    details: { name, group: RBAC_GROUP, kind: resource },
    code: 404,
  };
  return new ApiError(status);
}
