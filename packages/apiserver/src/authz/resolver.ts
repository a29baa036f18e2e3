// Which rules apply to a user in a namespace (kube's DefaultRuleResolver) and the RBAC decision
// with kube's reasons: every ClusterRoleBinding naming the user, then, for a namespaced request,
// every RoleBinding in that namespace; a binding whose role is missing contributes an error
// (reported in a denial's reason) and no rules. Pure over a PolicySource.
import {
  describeSubject,
  ruleAllows,
  subjectApplies,
  type Attributes,
  type PolicyRule,
  type RoleRef,
  type Subject,
  type UserInfo,
} from './policy.ts';

export interface Binding {
  name: string;
  /** Unset for a ClusterRoleBinding. */
  namespace?: string;
  roleRef: RoleRef;
  subjects: Subject[];
}

/** The stored RBAC objects, read on demand. */
export interface PolicySource {
  clusterRoleBindings(): readonly Binding[];
  roleBindings(namespace: string): readonly Binding[];
  /** Rules of a Role or ClusterRole, or undefined when there is no such role. */
  role(namespace: string, name: string): readonly PolicyRule[] | undefined;
  clusterRole(name: string): readonly PolicyRule[] | undefined;
}

/** Visits each rule with the binding it came from; returns false from `visit` to stop. */
type Visitor = (source: string | undefined, rule: PolicyRule | undefined, err?: string) => boolean;

/** The rules a role reference resolves to, or kube's lister message when it is missing. */
export function roleRefRules(
  p: PolicySource,
  ref: RoleRef,
  namespace: string,
): { rules: readonly PolicyRule[] } | { error: string } {
  if (ref.kind === 'Role') {
    const rules = p.role(namespace, ref.name);
    return rules ? { rules } : { error: `role.rbac.authorization.k8s.io "${ref.name}" not found` };
  }
  if (ref.kind === 'ClusterRole') {
    const rules = p.clusterRole(ref.name);
    return rules
      ? { rules }
      : { error: `clusterrole.rbac.authorization.k8s.io "${ref.name}" not found` };
  }
  return { error: `unsupported role reference kind: "${ref.kind}"` };
}

function describeBinding(b: Binding, s: Subject): string {
  const what = `${b.roleRef.kind} ${JSON.stringify(b.roleRef.name)}`;
  if (b.namespace === undefined)
    return `ClusterRoleBinding ${JSON.stringify(b.name)} of ${what} to ${describeSubject(s, '')}`;
  return `RoleBinding ${JSON.stringify(`${b.name}/${b.namespace}`)} of ${what} to ${describeSubject(s, b.namespace)}`;
}

function visitBindings(
  p: PolicySource,
  user: UserInfo,
  bindings: readonly Binding[],
  namespace: string,
  visit: Visitor,
): boolean {
  for (const b of bindings) {
    const subject = b.subjects.find((s) => subjectApplies(user, s, namespace));
    if (!subject) continue;
    const resolved = roleRefRules(p, b.roleRef, namespace);
    if ('error' in resolved) {
      if (!visit(undefined, undefined, resolved.error)) return false;
      continue;
    }
    const source = describeBinding(b, subject);
    for (const rule of resolved.rules) if (!visit(source, rule)) return false;
  }
  return true;
}

export function visitRulesFor(
  p: PolicySource,
  user: UserInfo,
  namespace: string,
  visit: Visitor,
): void {
  if (!visitBindings(p, user, p.clusterRoleBindings(), '', visit)) return;
  if (namespace !== '') visitBindings(p, user, p.roleBindings(namespace), namespace, visit);
}

/** Every rule that applies, and the resolution errors met on the way. */
export function rulesFor(
  p: PolicySource,
  user: UserInfo,
  namespace: string,
): { rules: PolicyRule[]; errors: string[] } {
  const rules: PolicyRule[] = [];
  const errors: string[] = [];
  visitRulesFor(p, user, namespace, (_source, rule, err) => {
    if (rule) rules.push(rule);
    if (err !== undefined) errors.push(err);
    return true;
  });
  return { rules, errors };
}

/** Go's utilerrors.NewAggregate(...).Error(): one message as is, several as `[a, b]`. */
export function aggregate(errors: readonly string[]): string {
  return errors.length === 1 ? (errors[0] as string) : `[${errors.join(', ')}]`;
}

export interface Decision {
  allowed: boolean;
  reason: string;
}

/** The superuser group: always allowed, before RBAC is consulted (kube's privileged groups). */
export const SYSTEM_MASTERS = 'system:masters';

/** kube-apiserver's authorizer chain for `--authorization-mode=RBAC`. */
export function authorize(p: PolicySource, a: Attributes): Decision {
  if (a.user.groups.includes(SYSTEM_MASTERS)) return { allowed: true, reason: '' };
  let reason = '';
  const errors: string[] = [];
  let allowed = false;
  visitRulesFor(p, a.user, a.resourceRequest ? (a.namespace ?? '') : '', (source, rule, err) => {
    if (rule && ruleAllows(a, rule)) {
      allowed = true;
      reason = `RBAC: allowed by ${source ?? ''}`;
      return false;
    }
    if (err !== undefined) errors.push(err);
    return true;
  });
  if (allowed) return { allowed, reason };
  return { allowed: false, reason: errors.length > 0 ? `RBAC: ${aggregate(errors)}` : '' };
}
