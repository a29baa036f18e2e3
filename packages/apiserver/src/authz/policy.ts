// RBAC policy rules and what they allow, with kube-apiserver's matching semantics: `*` for all
// verbs, groups and resources, `*/sub` for one subresource of every resource, `path*` prefixes
// for non-resource URLs, and resourceNames narrowing a rule to named objects. Pure.

export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export interface Subject {
  kind: string;
  name: string;
  apiGroup?: string;
  namespace?: string;
}

export interface RoleRef {
  apiGroup: string;
  kind: string;
  name: string;
}

import type { UserInfo } from '../auth/authenticate.ts';

export type { UserInfo };

/** What is being asked: a resource request or a non-resource URL, by whom. */
export type Attributes =
  | {
      user: UserInfo;
      resourceRequest: true;
      verb: string;
      apiGroup: string;
      apiVersion?: string;
      resource: string;
      subresource?: string;
      namespace?: string;
      name?: string;
    }
  | { user: UserInfo; resourceRequest: false; verb: string; path: string };

export type ResourceAttributes = Extract<Attributes, { resourceRequest: true }>;

const ALL = '*';

const has = (set: readonly string[] | undefined, v: string): boolean =>
  set !== undefined && set.includes(v);

function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  for (const r of rule.resources ?? []) {
    if (r === ALL || r === combined) return true;
    if (subresource === '') continue;
    if (r.length === subresource.length + 2 && r.startsWith('*/') && r.endsWith(subresource))
      return true;
  }
  return false;
}

function nonResourceUrlMatches(rule: PolicyRule, path: string): boolean {
  for (const u of rule.nonResourceURLs ?? []) {
    if (u === ALL || u === path) return true;
    if (u.endsWith('*') && path.startsWith(u.slice(0, -1))) return true;
  }
  return false;
}

/** Whether one rule allows the request. */
export function ruleAllows(a: Attributes, rule: PolicyRule): boolean {
  const verb = has(rule.verbs, ALL) || has(rule.verbs, a.verb);
  if (!verb) return false;
  if (!a.resourceRequest) return nonResourceUrlMatches(rule, a.path);
  const sub = a.subresource ?? '';
  const combined = sub === '' ? a.resource : `${a.resource}/${sub}`;
  const groups = rule.apiGroups ?? [];
  const names = rule.resourceNames ?? [];
  return (
    (has(groups, ALL) || has(groups, a.apiGroup)) &&
    resourceMatches(rule, combined, sub) &&
    (names.length === 0 || has(names, a.name ?? ''))
  );
}

/** One rule per group × resource × verb × name and per URL × verb (kube's BreakdownRule). */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? [])
    for (const resource of rule.resources ?? [])
      for (const verb of rule.verbs) {
        const names = rule.resourceNames ?? [];
        if (names.length === 0)
          out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
        else
          for (const n of names)
            out.push({
              apiGroups: [group],
              resources: [resource],
              verbs: [verb],
              resourceNames: [n],
            });
      }
  for (const url of rule.nonResourceURLs ?? [])
    for (const verb of rule.verbs) out.push({ nonResourceURLs: [url], verbs: [verb] });
  return out;
}

const hasAll = (set: readonly string[] | undefined, wanted: readonly string[] | undefined) =>
  (wanted ?? []).every((w) => has(set, w));

function resourcesCover(set: readonly string[], wanted: readonly string[]): boolean {
  if (set.includes(ALL) || hasAll(set, wanted)) return true;
  return wanted.every((path) => {
    if (set.includes(path)) return true;
    const slash = path.indexOf('/');
    return slash >= 0 && set.includes(`*/${path.slice(slash + 1)}`);
  });
}

function urlsCover(set: readonly string[], wanted: readonly string[]): boolean {
  return wanted.every((path) =>
    set.some((o) => o === path || (o.endsWith('*') && path.startsWith(o.replace(/\*+$/, '')))),
  );
}

/** Whether `owner` (any shape) covers `sub` (one verb, resource and name at most). */
function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const ownerNames = owner.resourceNames ?? [];
  const subNames = sub.resourceNames ?? [];
  const names =
    subNames.length === 0
      ? ownerNames.length === 0
      : ownerNames.length === 0 || hasAll(ownerNames, subNames);
  return (
    (has(owner.verbs, ALL) || hasAll(owner.verbs, sub.verbs)) &&
    (has(owner.apiGroups, ALL) || hasAll(owner.apiGroups, sub.apiGroups)) &&
    resourcesCover(owner.resources ?? [], sub.resources ?? []) &&
    urlsCover(owner.nonResourceURLs ?? [], sub.nonResourceURLs ?? []) &&
    names
  );
}

/** The parts of `wanted` that `owner` does not cover, broken down (kube's Covers). */
export function uncovered(
  owner: readonly PolicyRule[],
  wanted: readonly PolicyRule[],
): PolicyRule[] {
  return wanted.flatMap(breakdownRule).filter((sub) => !owner.some((o) => ruleCovers(o, sub)));
}

/** Merges rules of one group, one resource and at most one name that differ only by verb. */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule>();
  for (const rule of rules) {
    const names = rule.resourceNames ?? [];
    const isSimple =
      names.length <= 1 &&
      (rule.nonResourceURLs ?? []).length === 0 &&
      (rule.apiGroups ?? []).length === 1 &&
      (rule.resources ?? []).length === 1;
    if (!isSimple) {
      out.push(rule);
      continue;
    }
    const key = JSON.stringify([rule.apiGroups, rule.resources, names.length > 0, names[0]]);
    const existing = simple.get(key);
    if (existing) existing.verbs = [...existing.verbs, ...rule.verbs];
    else simple.set(key, structuredClone(rule));
  }
  return [...out, ...simple.values()];
}

/** Go's `%q` of a []string: `["a" "b"]`. */
export function goQuoteList(values: readonly string[]): string {
  return `[${values.map((v) => JSON.stringify(v)).join(' ')}]`;
}

/** kube's CompactString: `{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`. */
export function compactString(r: PolicyRule): string {
  const parts: string[] = [];
  const add = (label: string, v: readonly string[] | undefined) => {
    if (v && v.length > 0) parts.push(`${label}:${goQuoteList(v)}`);
  };
  add('APIGroups', r.apiGroups);
  add('Resources', r.resources);
  add('NonResourceURLs', r.nonResourceURLs);
  add('ResourceNames', r.resourceNames);
  add('Verbs', r.verbs);
  return `{${parts.join(', ')}}`;
}

/** Whether a binding subject names the user (a ServiceAccount defaults to `namespace`). */
export function subjectApplies(user: UserInfo, s: Subject, namespace: string): boolean {
  switch (s.kind) {
    case 'User':
      return user.username === s.name;
    case 'Group':
      return user.groups.includes(s.name);
    case 'ServiceAccount': {
      const ns = s.namespace !== undefined && s.namespace !== '' ? s.namespace : namespace;
      return ns !== '' && user.username === `system:serviceaccount:${ns}:${s.name}`;
    }
    default:
      return false;
  }
}

/** kube's describeSubject: `User "alice"`, `ServiceAccount "bot/ns"`. */
export function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === 'ServiceAccount') {
    const ns = s.namespace !== undefined && s.namespace !== '' ? s.namespace : bindingNamespace;
    return `${s.kind} ${JSON.stringify(`${s.name}/${ns}`)}`;
  }
  return `${s.kind} ${JSON.stringify(s.name)}`;
}
