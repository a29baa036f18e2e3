// The pure RBAC evaluator: rule matching per shape, coverage for escalation checks, compaction
// and kube's message formats, resolution through bindings and the resulting decisions.
import { describe, expect, it } from 'vitest';
import { checkRbacWrite, escalationError } from './escalation.ts';
import {
  compactRules,
  compactString,
  ruleAllows,
  uncovered,
  type Attributes,
  type PolicyRule,
} from './policy.ts';
import { authorize, rulesFor, type Binding, type PolicySource } from './resolver.ts';

const bob = { username: 'bob', groups: ['devs', 'system:authenticated'] };

function res(verb: string, resource: string, more: Partial<Attributes> = {}): Attributes {
  return { user: bob, resourceRequest: true, verb, apiGroup: '', resource, ...more } as Attributes;
}

describe('ruleAllows', () => {
  const cases: [string, PolicyRule, Attributes, boolean][] = [
    ['exact', { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, res('get', 'pods'), true],
    [
      'other verb',
      { verbs: ['get'], apiGroups: [''], resources: ['pods'] },
      res('list', 'pods'),
      false,
    ],
    ['verb *', { verbs: ['*'], apiGroups: [''], resources: ['pods'] }, res('delete', 'pods'), true],
    [
      'group *',
      { verbs: ['get'], apiGroups: ['*'], resources: ['leases'] },
      res('get', 'leases', { apiGroup: 'coordination.k8s.io' }),
      true,
    ],
    [
      'other group',
      { verbs: ['get'], apiGroups: [''], resources: ['leases'] },
      res('get', 'leases', { apiGroup: 'coordination.k8s.io' }),
      false,
    ],
    [
      'subresource needs its own rule',
      { verbs: ['get'], apiGroups: [''], resources: ['pods'] },
      res('get', 'pods', { subresource: 'log' }),
      false,
    ],
    [
      'subresource rule',
      { verbs: ['get'], apiGroups: [''], resources: ['pods/log'] },
      res('get', 'pods', { subresource: 'log' }),
      true,
    ],
    [
      '*/subresource',
      { verbs: ['get'], apiGroups: [''], resources: ['*/status'] },
      res('get', 'services', { subresource: 'status' }),
      true,
    ],
    [
      '*/subresource is not the resource',
      { verbs: ['get'], apiGroups: [''], resources: ['*/status'] },
      res('get', 'services'),
      false,
    ],
    [
      'resource *',
      { verbs: ['get'], apiGroups: [''], resources: ['*'] },
      res('get', 'pods', { subresource: 'exec' }),
      true,
    ],
    [
      'named',
      { verbs: ['get'], apiGroups: [''], resources: ['cm'], resourceNames: ['a'] },
      res('get', 'cm', { name: 'a' }),
      true,
    ],
    [
      'other name',
      { verbs: ['get'], apiGroups: [''], resources: ['cm'], resourceNames: ['a'] },
      res('get', 'cm', { name: 'b' }),
      false,
    ],
    [
      'names never match an unnamed list',
      { verbs: ['list'], apiGroups: [''], resources: ['cm'], resourceNames: ['a'] },
      res('list', 'cm'),
      false,
    ],
    [
      'url',
      { verbs: ['get'], nonResourceURLs: ['/healthz'] },
      { user: bob, resourceRequest: false, verb: 'get', path: '/healthz' },
      true,
    ],
    [
      'url prefix',
      { verbs: ['get'], nonResourceURLs: ['/logs/*'] },
      { user: bob, resourceRequest: false, verb: 'get', path: '/logs/a/b' },
      true,
    ],
    [
      'url mismatch',
      { verbs: ['get'], nonResourceURLs: ['/healthz'] },
      { user: bob, resourceRequest: false, verb: 'get', path: '/healthz/x' },
      false,
    ],
    [
      'resource rule on a url',
      { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
      { user: bob, resourceRequest: false, verb: 'get', path: '/x' },
      false,
    ],
  ];
  it.each(cases)('%s', (_name, rule, a, want) => expect(ruleAllows(a, rule)).toBe(want));
});

describe('coverage and compaction (escalation checks)', () => {
  it('breaks requested rules down and reports what the owner lacks', () => {
    const owner: PolicyRule[] = [
      { verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps', '*/status'] },
      { verbs: ['get'], nonResourceURLs: ['/logs/*'] },
    ];
    const wanted: PolicyRule[] = [
      { verbs: ['get', 'delete'], apiGroups: [''], resources: ['configmaps', 'pods/status'] },
      { verbs: ['get'], nonResourceURLs: ['/logs/x', '/metrics'] },
    ];
    const missing = uncovered(owner, wanted);
    expect(missing).toEqual([
      { apiGroups: [''], resources: ['configmaps'], verbs: ['delete'] },
      { apiGroups: [''], resources: ['pods/status'], verbs: ['delete'] },
      { nonResourceURLs: ['/metrics'], verbs: ['get'] },
    ]);
    expect(
      compactRules([
        ...missing,
        { apiGroups: [''], resources: ['configmaps'], verbs: ['patch'] },
      ]).map(compactString),
    ).toEqual([
      '{NonResourceURLs:["/metrics"], Verbs:["get"]}',
      '{APIGroups:[""], Resources:["configmaps"], Verbs:["delete" "patch"]}',
      '{APIGroups:[""], Resources:["pods/status"], Verbs:["delete"]}',
    ]);
  });

  it('an owner rule with names covers only those names', () => {
    const owner: PolicyRule[] = [
      { verbs: ['update'], apiGroups: [''], resources: ['cm'], resourceNames: ['a'] },
    ];
    expect(
      uncovered(owner, [
        { verbs: ['update'], apiGroups: [''], resources: ['cm'], resourceNames: ['a'] },
      ]),
    ).toEqual([]);
    expect(
      uncovered(owner, [{ verbs: ['update'], apiGroups: [''], resources: ['cm'] }]),
    ).toHaveLength(1);
  });
});

class Policy implements PolicySource {
  constructor(
    readonly crbs: Binding[],
    readonly rbs: Binding[],
    readonly roles: Record<string, PolicyRule[]>,
    readonly clusterRoles: Record<string, PolicyRule[]>,
  ) {}
  clusterRoleBindings() {
    return this.crbs;
  }
  roleBindings(ns: string) {
    return this.rbs.filter((b) => b.namespace === ns);
  }
  role(ns: string, name: string) {
    return this.roles[`${ns}/${name}`];
  }
  clusterRole(name: string) {
    return this.clusterRoles[name];
  }
}

const GROUP = 'rbac.authorization.k8s.io';
const ref = (kind: string, name: string) => ({ apiGroup: GROUP, kind, name });
const sa = {
  username: 'system:serviceaccount:team:bot',
  groups: ['system:serviceaccounts', 'system:serviceaccounts:team', 'system:authenticated'],
};

describe('authorize', () => {
  const p = new Policy(
    [
      {
        name: 'readers',
        roleRef: ref('ClusterRole', 'reader'),
        subjects: [{ kind: 'Group', name: 'devs' }],
      },
    ],
    [
      {
        name: 'bot',
        namespace: 'team',
        roleRef: ref('ClusterRole', 'writer'),
        subjects: [{ kind: 'ServiceAccount', name: 'bot' }],
      },
      {
        name: 'gone',
        namespace: 'team',
        roleRef: ref('Role', 'gone'),
        subjects: [{ kind: 'ServiceAccount', name: 'bot', namespace: 'team' }],
      },
    ],
    {},
    {
      reader: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }],
      writer: [{ verbs: ['create'], apiGroups: [''], resources: ['configmaps'] }],
    },
  );

  it('explains an allow by the binding and subject', () => {
    expect(authorize(p, res('get', 'pods', { namespace: 'x' }))).toEqual({
      allowed: true,
      reason:
        'RBAC: allowed by ClusterRoleBinding "readers" of ClusterRole "reader" to Group "devs"',
    });
    expect(
      authorize(p, { ...res('create', 'configmaps', { namespace: 'team' }), user: sa }),
    ).toEqual({
      allowed: true,
      reason:
        'RBAC: allowed by RoleBinding "bot/team" of ClusterRole "writer" to ServiceAccount "bot/team"',
    });
  });

  it('a RoleBinding grants its namespace only; a missing role is the denial reason', () => {
    expect(
      authorize(p, { ...res('create', 'configmaps', { namespace: 'other' }), user: sa }),
    ).toEqual({ allowed: false, reason: '' });
    expect(
      authorize(p, { ...res('delete', 'configmaps', { namespace: 'team' }), user: sa }),
    ).toEqual({
      allowed: false,
      reason: 'RBAC: role.rbac.authorization.k8s.io "gone" not found',
    });
  });

  it('system:masters is allowed without a rule; rulesFor lists every applying rule', () => {
    expect(
      authorize(p, {
        ...res('delete', 'nodes'),
        user: { username: 'x', groups: ['system:masters'] },
      }).allowed,
    ).toBe(true);
    expect(rulesFor(p, sa, 'team')).toEqual({
      rules: [{ verbs: ['create'], apiGroups: [''], resources: ['configmaps'] }],
      errors: ['role.rbac.authorization.k8s.io "gone" not found'],
    });
  });

  it('refuses a role or binding that grants more than the writer holds', () => {
    expect(
      escalationError(p, sa, 'team', [
        { verbs: ['create'], apiGroups: [''], resources: ['configmaps'] },
      ]),
    ).toBeUndefined();
    expect(() =>
      checkRbacWrite(p, {
        user: sa,
        resource: 'rolebindings',
        namespace: 'team',
        name: 'x',
        requestName: '',
        obj: { roleRef: ref('ClusterRole', 'reader'), subjects: [] },
      }),
    ).toThrow(
      'rolebindings.rbac.authorization.k8s.io "x" is forbidden: user "system:serviceaccount:team:bot" (groups=["system:serviceaccounts" "system:serviceaccounts:team" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["pods"], Verbs:["get"]}; resolution errors: [role.rbac.authorization.k8s.io "gone" not found]',
    );
  });
});
