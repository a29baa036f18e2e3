// RBAC (semantics of kube-apiserver's --authorization-mode=RBAC): what a service account may do
// for each rule shape, kube's 403 bodies, escalation and bind prevention, aggregation, and the
// access reviews. Every case acts as a fresh service account of the case's namespace.
import { observe, type ConformanceCase } from '../case.ts';
import type { HttpResult, Target } from '../target.ts';
import {
  asServiceAccount,
  AUTHZ,
  canI,
  cleanup,
  createBinding,
  createRole,
  roleRef,
  rolePath,
  tokenKubeconfig,
  kubectl,
  saSubject,
  serviceAccountToken,
  settle,
  sortedRules,
} from './rbac-support.ts';

type Json = Record<string, unknown>;
const V1 = '/api/v1';

async function cm(t: Target, ns: string, name: string): Promise<void> {
  await t.request('POST', `${V1}/namespaces/${ns}/configmaps`, {
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'v' } },
  });
}

/** Status code only for allowed requests (bodies are covered elsewhere), everything for denials. */
function seen(res: HttpResult): unknown {
  return res.status === 403 ? observe(res) : { status: res.status };
}

export const RBAC_CASES: ConformanceCase[] = [
  {
    name: 'rbac: a service account without bindings is refused with kube 403 bodies',
    run: async (t, ns, rec) => {
      const bot = await asServiceAccount(t, ns, 'bot');
      await cm(t, ns, 'a');
      rec(
        'list configmaps',
        observe(await bot.request('GET', `${V1}/namespaces/${ns}/configmaps`)),
      );
      rec(
        'get configmap',
        observe(await bot.request('GET', `${V1}/namespaces/${ns}/configmaps/a`)),
      );
      rec('list secrets all namespaces', observe(await bot.request('GET', `${V1}/secrets`)));
      rec('get namespace', observe(await bot.request('GET', `${V1}/namespaces/${ns}`)));
      rec('list namespaces', observe(await bot.request('GET', `${V1}/namespaces`)));
      rec(
        'create configmap',
        observe(
          await bot.request('POST', `${V1}/namespaces/${ns}/configmaps`, {
            body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b' } },
          }),
        ),
      );
      rec(
        'delete configmap',
        observe(await bot.request('DELETE', `${V1}/namespaces/${ns}/configmaps/a`)),
      );
      rec(
        'watch by name',
        observe(
          await bot.request(
            'GET',
            `${V1}/namespaces/${ns}/configmaps?watch=1&fieldSelector=metadata.name%3Da`,
          ),
        ),
      );
      rec('list roles', observe(await bot.request('GET', rolePath(ns, 'roles'))));
      rec('non-resource path', observe(await bot.request('GET', '/metrics')));
      rec('discovery', (await bot.request('GET', '/api')).status);
      rec('version', (await bot.request('GET', '/version')).status);
      rec('healthz', (await bot.request('GET', '/healthz')).status);
    },
  },
  {
    name: 'rbac: Role rules by verb, resource, subresource and resourceNames',
    run: async (t, ns, rec) => {
      const bot = await asServiceAccount(t, ns, 'bot');
      await cm(t, ns, 'a');
      await cm(t, ns, 'b');
      await createRole(t, ns, 'shapes', [
        {
          verbs: ['get', 'update'],
          apiGroups: [''],
          resources: ['configmaps'],
          resourceNames: ['a'],
        },
        { verbs: ['list'], apiGroups: [''], resources: ['serviceaccounts'] },
        { verbs: ['get'], apiGroups: [''], resources: ['serviceaccounts/token'] },
        { verbs: ['create'], apiGroups: [''], resources: ['*/token'] },
        { verbs: ['*'], apiGroups: [''], resources: ['secrets'] },
        { verbs: ['get'], apiGroups: ['*'], resources: ['leases'] },
      ]);
      await createBinding(t, ns, 'shapes', roleRef('Role', 'shapes'), [saSubject(ns, 'bot')]);
      await settle(bot, { verb: 'list', resource: 'serviceaccounts', namespace: ns });
      const at = (p: string) => `${V1}/namespaces/${ns}/${p}`;
      rec('get named', seen(await bot.request('GET', at('configmaps/a'))));
      rec('get other name', seen(await bot.request('GET', at('configmaps/b'))));
      rec('list with names', seen(await bot.request('GET', at('configmaps'))));
      rec(
        'list one by fieldSelector',
        seen(await bot.request('GET', at('configmaps?fieldSelector=metadata.name%3Da'))),
      );
      rec('delete named (verb not granted)', seen(await bot.request('DELETE', at('configmaps/a'))));
      rec('list serviceaccounts', seen(await bot.request('GET', at('serviceaccounts'))));
      rec('get serviceaccount', seen(await bot.request('GET', at('serviceaccounts/bot'))));
      rec(
        'create token (*/token)',
        seen(await bot.request('POST', at('serviceaccounts/bot/token'), { body: { spec: {} } })),
      );
      rec(
        'secrets: all verbs',
        seen(
          await bot.request('POST', at('secrets'), {
            body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } },
          }),
        ),
      );
      rec('secrets: list', seen(await bot.request('GET', at('secrets'))));
      rec(
        'leases in any group',
        seen(await bot.request('GET', `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/x`)),
      );
      rec(
        'leases list',
        seen(await bot.request('GET', `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`)),
      );
      rec('other namespace', seen(await bot.request('GET', `${V1}/namespaces/default/secrets`)));
    },
  },
  {
    name: 'rbac: a ClusterRole bound by a RoleBinding grants one namespace, by a ClusterRoleBinding all',
    run: async (t, ns, rec) => {
      const bot = await asServiceAccount(t, ns, 'bot');
      const name = `conf-${ns}`;
      await createRole(t, undefined, name, [
        { verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps', 'namespaces'] },
        { verbs: ['get'], nonResourceURLs: ['/metrics', '/logs/*'] },
      ]);
      try {
        await createBinding(t, ns, 'local', roleRef('ClusterRole', name), [saSubject(ns, 'bot')]);
        await settle(bot, { verb: 'list', resource: 'configmaps', namespace: ns });
        rec('list here', seen(await bot.request('GET', `${V1}/namespaces/${ns}/configmaps`)));
        rec('get this namespace', seen(await bot.request('GET', `${V1}/namespaces/${ns}`)));
        rec(
          'list elsewhere',
          seen(await bot.request('GET', `${V1}/namespaces/kube-public/configmaps`)),
        );
        rec('list all namespaces', seen(await bot.request('GET', `${V1}/configmaps`)));
        rec('non-resource via RoleBinding', seen(await bot.request('GET', '/metrics')));
        await createBinding(t, undefined, name, roleRef('ClusterRole', name), [
          saSubject(ns, 'bot'),
        ]);
        await settle(bot, { verb: 'list', resource: 'configmaps' });
        rec(
          'list elsewhere now',
          seen(await bot.request('GET', `${V1}/namespaces/kube-public/configmaps`)),
        );
        rec('list namespaces now', seen(await bot.request('GET', `${V1}/namespaces?limit=1`)));
        const self = await bot.request('POST', `${AUTHZ}/selfsubjectaccessreviews`, {
          body: {
            apiVersion: 'authorization.k8s.io/v1',
            kind: 'SelfSubjectAccessReview',
            spec: { nonResourceAttributes: { verb: 'get', path: '/logs/kube.log' } },
          },
        });
        rec('prefix URL', ((self.body as Json)['status'] as Json)['allowed']);
      } finally {
        await cleanup(t, [
          rolePath(undefined, 'clusterrolebindings', name),
          rolePath(undefined, 'clusterroles', name),
        ]);
      }
    },
  },
  {
    name: 'rbac: a binding to a missing role denies with the resolution error',
    run: async (t, ns, rec) => {
      const bot = await asServiceAccount(t, ns, 'bot');
      await createBinding(t, ns, 'dangling', roleRef('Role', 'nothing'), [saSubject(ns, 'bot')]);
      await createRole(t, ns, 'probe', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]);
      await createBinding(t, ns, 'probe', roleRef('Role', 'probe'), [saSubject(ns, 'bot')]);
      await settle(bot, { verb: 'get', resource: 'pods', namespace: ns });
      rec('denied', observe(await bot.request('GET', `${V1}/namespaces/${ns}/secrets`)));
    },
  },
  {
    name: 'rbac: escalation — roles only with held rules, bindings only to held roles or with bind',
    run: async (t, ns, rec) => {
      const bot = await asServiceAccount(t, ns, 'bot');
      await createRole(t, ns, 'writer', [
        {
          verbs: ['create', 'update'],
          apiGroups: ['rbac.authorization.k8s.io'],
          resources: ['roles', 'rolebindings'],
        },
        { verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] },
      ]);
      await createRole(t, ns, 'secrets', [
        { verbs: ['get', 'list'], apiGroups: [''], resources: ['secrets'] },
      ]);
      await createRole(t, ns, 'cms', [
        { verbs: ['get'], apiGroups: [''], resources: ['configmaps'] },
      ]);
      await createBinding(t, ns, 'writer', roleRef('Role', 'writer'), [saSubject(ns, 'bot')]);
      await settle(bot, {
        verb: 'create',
        resource: 'roles',
        group: 'rbac.authorization.k8s.io',
        namespace: ns,
      });
      const role = (name: string, rules: unknown[]) => ({
        body: {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'Role',
          metadata: { name },
          rules,
        },
      });
      const binding = (name: string, ref: Json) => ({
        body: {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'RoleBinding',
          metadata: { name },
          roleRef: ref,
          subjects: [saSubject(ns, 'bot')],
        },
      });
      const roles = rolePath(ns, 'roles');
      const bindings = rolePath(ns, 'rolebindings');
      rec(
        'role with held rules',
        seen(
          await bot.request(
            'POST',
            roles,
            role('ok', [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }]),
          ),
        ),
      );
      rec(
        'role granting secrets',
        observe(
          await bot.request(
            'POST',
            roles,
            role('esc', [
              { verbs: ['get', 'list', 'delete'], apiGroups: [''], resources: ['secrets', 'pods'] },
              { verbs: ['get'], apiGroups: [''], resources: ['configmaps'] },
            ]),
          ),
        ),
      );
      rec(
        'role with resourceNames',
        observe(
          await bot.request(
            'POST',
            roles,
            role('named', [
              {
                verbs: ['update'],
                apiGroups: [''],
                resources: ['configmaps'],
                resourceNames: ['a', 'b'],
              },
            ]),
          ),
        ),
      );
      rec(
        'bind a held role',
        seen(await bot.request('POST', bindings, binding('ok', roleRef('Role', 'cms')))),
      );
      rec(
        'bind an unheld role',
        observe(await bot.request('POST', bindings, binding('esc', roleRef('Role', 'secrets')))),
      );
      rec(
        'bind a missing role',
        observe(
          await bot.request('POST', bindings, binding('missing', roleRef('Role', 'nothing'))),
        ),
      );
      rec(
        'bind cluster-admin',
        observe(
          await bot.request(
            'POST',
            bindings,
            binding('admin', roleRef('ClusterRole', 'cluster-admin')),
          ),
        ),
      );
      await createRole(t, ns, 'binder', [
        {
          verbs: ['bind'],
          apiGroups: ['rbac.authorization.k8s.io'],
          resources: ['roles'],
          resourceNames: ['secrets'],
        },
        {
          verbs: ['escalate'],
          apiGroups: ['rbac.authorization.k8s.io'],
          resources: ['roles'],
          resourceNames: ['esc'],
        },
      ]);
      await createBinding(t, ns, 'binder', roleRef('Role', 'binder'), [saSubject(ns, 'bot')]);
      await settle(bot, {
        verb: 'bind',
        resource: 'roles',
        group: 'rbac.authorization.k8s.io',
        namespace: ns,
        name: 'secrets',
      });
      rec(
        'bind with the bind verb',
        seen(await bot.request('POST', bindings, binding('esc', roleRef('Role', 'secrets')))),
      );
      rec(
        'escalate with the escalate verb',
        seen(
          await bot.request(
            'POST',
            roles,
            role('esc', [{ verbs: ['delete'], apiGroups: [''], resources: ['pods'] }]),
          ),
        ),
      );
    },
  },
  {
    name: 'rbac: aggregated ClusterRoles gather the rules of the roles their selectors match',
    run: async (t, ns, rec) => {
      const bot = await asServiceAccount(t, ns, 'bot');
      const agg = `conf-${ns}-agg`;
      const part = `conf-${ns}-part`;
      const label = `conf.example.com/${'aggregate'}`;
      const paths = [
        rolePath(undefined, 'clusterroles', agg),
        rolePath(undefined, 'clusterroles', part),
        rolePath(undefined, 'clusterroles', `${part}-view`),
      ];
      try {
        const res = await t.request('POST', rolePath(undefined, 'clusterroles'), {
          body: {
            apiVersion: 'rbac.authorization.k8s.io/v1',
            kind: 'ClusterRole',
            metadata: { name: agg },
            aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [label]: ns } }] },
          },
        });
        rec('create aggregated', res.status);
        await createRole(
          t,
          undefined,
          part,
          [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }],
          { labels: { [label]: ns } },
        );
        await createBinding(t, ns, 'agg', roleRef('ClusterRole', agg), [saSubject(ns, 'bot')]);
        await settle(bot, { verb: 'get', resource: 'configmaps', namespace: ns });
        const rules = async () =>
          ((await t.request('GET', rolePath(undefined, 'clusterroles', agg))).body as Json)[
            'rules'
          ];
        rec('gathered', await rules());
        await t.request('PATCH', rolePath(undefined, 'clusterroles', part), {
          contentType: 'application/merge-patch+json',
          body: { rules: [{ verbs: ['list'], apiGroups: [''], resources: ['secrets'] }] },
        });
        await settle(bot, { verb: 'list', resource: 'secrets', namespace: ns });
        rec('after the part changed', await rules());
        rec(
          'old rule gone',
          (await canI(bot, { verb: 'get', resource: 'configmaps', namespace: ns }))['allowed'],
        );
        // `view` is aggregated too: a labelled ClusterRole extends it.
        await createBinding(t, ns, 'view', roleRef('ClusterRole', 'view'), [saSubject(ns, 'bot')]);
        await createRole(
          t,
          undefined,
          `${part}-view`,
          [{ verbs: ['get'], apiGroups: ['agents.x-k8s.io'], resources: ['sandboxes'] }],
          {
            labels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' },
          },
        );
        await settle(bot, {
          verb: 'get',
          resource: 'sandboxes',
          group: 'agents.x-k8s.io',
          namespace: ns,
        });
        rec('view extended', true);
      } finally {
        await cleanup(t, paths);
      }
    },
  },
  {
    name: 'rbac: bootstrap roles answer as on a cluster (view, edit, admin, basic-user)',
    run: async (t, ns, rec) => {
      for (const role of ['view', 'edit', 'admin']) {
        const bot = await asServiceAccount(t, ns, role);
        await createBinding(t, ns, role, roleRef('ClusterRole', role), [saSubject(ns, role)]);
        await settle(bot, { verb: 'get', resource: 'pods', namespace: ns });
        for (const [verb, resource, group, sub] of [
          ['get', 'pods', '', ''],
          ['get', 'pods', '', 'log'],
          ['create', 'pods', '', 'exec'],
          ['list', 'secrets', '', ''],
          ['create', 'configmaps', '', ''],
          ['create', 'serviceaccounts', '', 'token'],
          ['update', 'leases', 'coordination.k8s.io', ''],
          ['list', 'endpointslices', 'discovery.k8s.io', ''],
          ['create', 'networkpolicies', 'networking.k8s.io', ''],
          ['create', 'rolebindings', 'rbac.authorization.k8s.io', ''],
          ['create', 'localsubjectaccessreviews', 'authorization.k8s.io', ''],
          ['update', 'pods', '', 'status'],
          ['delete', 'namespaces', '', ''],
          ['list', 'nodes', '', ''],
        ] as const) {
          const status = await canI(bot, {
            verb,
            resource,
            group,
            namespace: ns,
            ...(sub ? { subresource: sub } : {}),
          });
          rec(`${role}: ${verb} ${resource}${sub ? `/${sub}` : ''}.${group}`, status['allowed']);
        }
      }
    },
  },
  {
    name: 'access reviews: SubjectAccessReview, LocalSubjectAccessReview, SelfSubjectAccessReview',
    run: async (t, ns, rec) => {
      await createRole(t, ns, 'reader', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]);
      await createBinding(t, ns, 'alice', roleRef('Role', 'reader'), [
        { kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.k8s.io' },
      ]);
      await createBinding(t, ns, 'devs', roleRef('Role', 'reader'), [
        { kind: 'Group', name: 'devs', apiGroup: 'rbac.authorization.k8s.io' },
      ]);
      const sar = (spec: Json) =>
        t.request('POST', `${AUTHZ}/subjectaccessreviews`, {
          body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec },
        });
      const pods = { verb: 'get', resource: 'pods', namespace: ns };
      for (let i = 0; i < 100; i++) {
        const s = (await sar({ user: 'alice', resourceAttributes: pods })).body as Json;
        if ((s['status'] as Json | undefined)?.['allowed'] === true) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      rec('user allowed', observe(await sar({ user: 'alice', resourceAttributes: pods })));
      rec(
        'group allowed',
        observe(await sar({ user: 'bob', groups: ['devs'], resourceAttributes: pods })),
      );
      rec('user denied', observe(await sar({ user: 'bob', resourceAttributes: pods })));
      rec(
        'masters',
        observe(
          await sar({
            user: 'root',
            groups: ['system:masters'],
            resourceAttributes: { verb: 'delete', resource: 'nodes' },
          }),
        ),
      );
      rec(
        'non-resource',
        observe(
          await sar({
            user: 'carol',
            groups: ['system:authenticated'],
            // /apis: only system:discovery grants it. /version is granted by system:discovery and
            // system:public-info-viewer both, and kube names whichever binding its cache lists
            // first (Go map order), so its reason differs from run to run.
            nonResourceAttributes: { verb: 'get', path: '/apis' },
          }),
        ),
      );
      rec(
        'non-resource denied',
        observe(
          await sar({ user: 'carol', nonResourceAttributes: { verb: 'get', path: '/metrics' } }),
        ),
      );
      rec('no attributes', observe(await sar({ user: 'alice' })));
      rec(
        'both attributes',
        observe(
          await sar({
            user: 'alice',
            resourceAttributes: pods,
            nonResourceAttributes: { verb: 'get', path: '/' },
          }),
        ),
      );
      rec('no user', observe(await sar({ resourceAttributes: pods })));
      const local = (spec: Json, namespace = ns) =>
        t.request('POST', `${AUTHZ}/namespaces/${ns}/localsubjectaccessreviews`, {
          body: {
            apiVersion: 'authorization.k8s.io/v1',
            kind: 'LocalSubjectAccessReview',
            metadata: { namespace },
            spec,
          },
        });
      rec('local allowed', observe(await local({ user: 'alice', resourceAttributes: pods })));
      rec(
        'local namespace mismatch',
        observe(
          await local({ user: 'alice', resourceAttributes: { ...pods, namespace: 'other' } }),
        ),
      );
      const bot = await asServiceAccount(t, ns, 'bot');
      await createBinding(t, ns, 'bot', roleRef('Role', 'reader'), [saSubject(ns, 'bot')]);
      await settle(bot, pods);
      const self = (spec: Json) =>
        bot.request('POST', `${AUTHZ}/selfsubjectaccessreviews`, {
          body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec },
        });
      rec('self allowed', observe(await self({ resourceAttributes: pods })));
      rec('self denied', observe(await self({ resourceAttributes: { ...pods, verb: 'delete' } })));
      rec(
        'self non-resource',
        observe(await self({ nonResourceAttributes: { verb: 'get', path: '/api/v1' } })),
      );
      rec('self invalid', observe(await self({})));
      rec(
        'sar as bot',
        observe(
          await bot.request('POST', `${AUTHZ}/subjectaccessreviews`, {
            body: {
              apiVersion: 'authorization.k8s.io/v1',
              kind: 'SubjectAccessReview',
              spec: { user: 'x', resourceAttributes: pods },
            },
          }),
        ),
      );
    },
  },
  {
    name: 'access reviews: SelfSubjectRulesReview and SelfSubjectReview',
    run: async (t, ns, rec) => {
      const bot = await asServiceAccount(t, ns, 'bot');
      await createRole(t, ns, 'mixed', [
        {
          verbs: ['get', 'watch'],
          apiGroups: ['', 'apps'],
          resources: ['configmaps', 'deployments/scale'],
          resourceNames: ['x'],
        },
        { verbs: ['*'], apiGroups: ['batch'], resources: ['jobs'] },
      ]);
      await createBinding(t, ns, 'mixed', roleRef('Role', 'mixed'), [saSubject(ns, 'bot')]);
      await createBinding(t, ns, 'missing', roleRef('ClusterRole', `conf-${ns}-none`), [
        saSubject(ns, 'bot'),
      ]);
      await settle(bot, { verb: 'create', resource: 'jobs', group: 'batch', namespace: ns });
      const rules = async (namespace: string) => {
        const res = await bot.request('POST', `${AUTHZ}/selfsubjectrulesreviews`, {
          body: {
            apiVersion: 'authorization.k8s.io/v1',
            kind: 'SelfSubjectRulesReview',
            spec: { namespace },
          },
        });
        const o = observe(res) as Json;
        const body = o['body'] as Json | undefined;
        const status = body?.['status'] as Json | undefined;
        if (!status) return o;
        return {
          ...o,
          body: {
            ...body,
            status: {
              ...status,
              resourceRules: sortedRules(status['resourceRules']),
              nonResourceRules: sortedRules(status['nonResourceRules']),
            },
          },
        };
      };
      rec('rules here', await rules(ns));
      rec('rules elsewhere', await rules('kube-public'));
      rec('no namespace', await rules(''));
      const whoami = await bot.request(
        'POST',
        '/apis/authentication.k8s.io/v1/selfsubjectreviews',
        {
          body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
        },
      );
      rec('whoami', observe(whoami));
    },
  },
  {
    name: 'kubectl auth can-i, can-i --list and whoami as a service account',
    run: async (t, ns, rec) => {
      const token = await serviceAccountToken(t, ns, 'bot');
      const bot = t.withToken(token);
      await createRole(t, ns, 'some', [
        { verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] },
        {
          verbs: ['update'],
          apiGroups: ['coordination.k8s.io'],
          resources: ['leases'],
          resourceNames: ['l'],
        },
      ]);
      await createBinding(t, ns, 'some', roleRef('Role', 'some'), [saSubject(ns, 'bot')]);
      await settle(bot, { verb: 'list', resource: 'configmaps', namespace: ns });
      const kc = tokenKubeconfig(t, token);
      const run = async (args: string[]) => {
        const r = await kubectl(kc, args);
        return { code: r.code, stdout: r.stdout, stderr: r.stderr.replace(/^W\d{4}.*\n/gm, '') };
      };
      rec('can-i list configmaps', await run(['auth', 'can-i', 'list', 'configmaps', '-n', ns]));
      rec(
        'can-i delete configmaps',
        await run(['auth', 'can-i', 'delete', 'configmaps', '-n', ns]),
      );
      rec(
        'can-i update leases/l',
        await run(['auth', 'can-i', 'update', 'leases.coordination.k8s.io/l', '-n', ns]),
      );
      rec(
        'can-i update leases/m',
        await run(['auth', 'can-i', 'update', 'leases.coordination.k8s.io/m', '-n', ns]),
      );
      rec('can-i get /version', await run(['auth', 'can-i', 'get', '/version']));
      rec(
        'can-i list secrets elsewhere',
        await run(['auth', 'can-i', 'list', 'secrets', '-n', 'default']),
      );
      const list = await run(['auth', 'can-i', '--list', '-n', ns]);
      // Rows come from unordered caches on a cluster: compare them as a sorted set.
      const [head, ...rows] = list.stdout.split('\n');
      rec('can-i --list', { code: list.code, head, rows: rows.filter((r) => r !== '').sort() });
      const who = await run(['auth', 'whoami', '-o', 'json']);
      rec('whoami', {
        code: who.code,
        out: JSON.parse(who.stdout.replace(/JTI=[\w-]+/, 'JTI=<jti>')) as unknown,
      });
    },
  },
];
