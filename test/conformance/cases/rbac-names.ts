// RBAC object names: kube asks only that they fit a URL path segment (ValidateRBACName), so the
// `system:controller:x` style of its bootstrap policy is valid for our own Roles and bindings,
// while '.', '..', '/' and '%' are refused with the name-field message.
import { observe, type ConformanceCase } from '../case.ts';
import type { Target } from '../target.ts';
import {
  asServiceAccount,
  cleanup,
  createBinding,
  createRole,
  roleRef,
  rolePath,
  saSubject,
  settle,
} from './rbac-support.ts';

const GROUP_VERSION = 'rbac.authorization.k8s.io/v1';
const READ_CONFIGMAPS = [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] }];

/** An observation with the random suffix after `prefix` (a generateName) masked. */
function masked(value: unknown, prefix: string | undefined): unknown {
  if (prefix === undefined) return value;
  const suffix = new RegExp(`${prefix.replace(/[^\w]/g, '\\$&')}[a-z0-9]{5}`, 'g');
  return JSON.parse(JSON.stringify(value).replace(suffix, `${prefix}<rand>`)) as unknown;
}

/** POSTs a Role with `metadata` as given (a name or a generateName) and reports what happened. */
async function postRole(t: Target, ns: string, metadata: Record<string, string>) {
  const res = await t.request('POST', rolePath(ns, 'roles'), {
    body: { apiVersion: GROUP_VERSION, kind: 'Role', metadata, rules: READ_CONFIGMAPS },
  });
  if (res.status !== 201) return masked(observe(res), metadata['generateName']);
  const name = String((res.body as { metadata: { name: string } }).metadata.name);
  return { status: res.status, generated: name.startsWith(metadata['generateName'] ?? name) };
}

export const RBAC_NAME_CASES: ConformanceCase[] = [
  {
    name: "rbac: Role, ClusterRole and binding names may contain ':' and grant as usual",
    run: async (t, ns, rec) => {
      const cluster = `conf:${ns}:reader`;
      const clusterBinding = `conf:${ns}:bind`;
      const bot = await asServiceAccount(t, ns, 'bot');
      try {
        await createRole(t, ns, 'system:conf:reader', READ_CONFIGMAPS);
        await createRole(t, undefined, cluster, [
          { verbs: ['get'], apiGroups: [''], resources: ['namespaces'] },
        ]);
        await createBinding(t, ns, 'system:conf:bind', roleRef('Role', 'system:conf:reader'), [
          saSubject(ns, 'bot'),
        ]);
        await createBinding(t, undefined, clusterBinding, roleRef('ClusterRole', cluster), [
          saSubject(ns, 'bot'),
        ]);
        await settle(bot, { verb: 'list', resource: 'configmaps', namespace: ns });
        await settle(bot, { verb: 'get', resource: 'namespaces', name: ns });
        for (const [label, path] of [
          ['get role', rolePath(ns, 'roles', 'system:conf:reader')],
          ['get rolebinding', rolePath(ns, 'rolebindings', 'system:conf:bind')],
          ['get clusterrole', rolePath(undefined, 'clusterroles', cluster)],
          ['get clusterrolebinding', rolePath(undefined, 'clusterrolebindings', clusterBinding)],
        ] as const) {
          rec(label, observe(await t.request('GET', path)));
        }
        rec(
          'granted list',
          (await bot.request('GET', `/api/v1/namespaces/${ns}/configmaps`)).status,
        );
        rec('granted get', (await bot.request('GET', `/api/v1/namespaces/${ns}`)).status);
        rec(
          'delete role',
          (await t.request('DELETE', rolePath(ns, 'roles', 'system:conf:reader'))).status,
        );
      } finally {
        await cleanup(t, [
          rolePath(undefined, 'clusterrolebindings', clusterBinding),
          rolePath(undefined, 'clusterroles', cluster),
        ]);
      }
    },
  },
  {
    name: 'rbac: names that are no path segment are refused, others kinds keep the DNS rule',
    run: async (t, ns, rec) => {
      for (const name of ['.', '..', 'a/b', 'a%b', 'a%b/c', 'Upper:Case', 'ok:x']) {
        rec(`role ${name}`, await postRole(t, ns, { name }));
      }
      rec('generateName with colon', await postRole(t, ns, { generateName: 'system:gen:' }));
      rec('generateName with slash', await postRole(t, ns, { generateName: 'gen/' }));
      const cm = await t.request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'system:cm' } },
      });
      rec('configmap with colon', observe(cm));
      const generated = await t.request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'Gen:' } },
      });
      // Both metadata.generateName and the name made from it are named, as kube does.
      rec('configmap generateName', masked(observe(generated), 'Gen:'));
      const crb = await t.request('POST', rolePath(undefined, 'clusterrolebindings'), {
        body: {
          apiVersion: GROUP_VERSION,
          kind: 'ClusterRoleBinding',
          metadata: { name: '..' },
          roleRef: roleRef('ClusterRole', 'view'),
        },
      });
      rec('clusterrolebinding ..', observe(crb));
    },
  },
];
