// Pod Security admission (pod-security.kubernetes.io namespace labels): enforce refuses with
// kube's 403 naming each field, warn answers with Warning headers, audit lets the Pod in; label
// values are validated; tightening enforce warns about the Pods already there. Pods are created
// with dryRun=All where nothing needs to stay (admission runs all the same).
import { observe, type ConformanceCase } from '../case.ts';
import type { HttpResult, Target } from '../target.ts';

type Json = Record<string, unknown>;

/** Pods a namespace-update warning names: each group is "name" or "name (and N other pods)". */
function podsWarned(warning: string | undefined): number {
  let count = 0;
  for (const m of (warning ?? '').matchAll(/299 - "[a-z0-9.-]+( \(and (\d+) other pods?\))?:/g))
    count += 1 + Number(m[2] ?? 0);
  return count;
}

const P = 'pod-security.kubernetes.io';

async function label(
  t: Target,
  ns: string,
  labels: Record<string, string | null>,
  dryRun = false,
): Promise<HttpResult> {
  return t.request('PATCH', `/api/v1/namespaces/${ns}${dryRun ? '?dryRun=All' : ''}`, {
    contentType: 'application/merge-patch+json',
    body: { metadata: { labels } },
  });
}

/**
 * A fresh namespace `<ns>-<n>` created with `labels`. kube-apiserver's Pod Security reads a
 * patched namespace from its informer cache a moment later, but looks up one it has not seen,
 * so a new namespace takes effect at once. The case's namespace deletion does not cover it:
 * conformance.cluster.test.ts deletes every `conf-` namespace it made, these included.
 */
async function labelled(
  t: Target,
  ns: string,
  n: number,
  labels: Record<string, string>,
): Promise<string> {
  const name = `${ns}-${n}`;
  const res = await t.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } },
  });
  if (res.status !== 201) throw new Error(`${t.name}: create namespace ${name}: ${res.status}`);
  return name;
}

function pod(name: string, spec: Json = {}, container: Json = {}): Json {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { containers: [{ name: 'c', image: 'busybox', ...container }], ...spec },
  };
}

const RESTRICTED_OK: Json = {
  securityContext: {
    allowPrivilegeEscalation: false,
    capabilities: { drop: ['ALL'] },
    runAsNonRoot: true,
    seccompProfile: { type: 'RuntimeDefault' },
  },
};

async function tryPod(t: Target, ns: string, body: Json, dryRun = true): Promise<unknown> {
  const res = await t.request(
    'POST',
    `/api/v1/namespaces/${ns}/pods${dryRun ? '?dryRun=All' : ''}`,
    { body },
  );
  const o = observe(res) as Json;
  const warning = res.headers['warning'];
  return { ...(res.status === 201 ? { status: 201 } : o), ...(warning ? { warning } : {}) };
}

const BASELINE_VIOLATIONS: [string, Json, Json][] = [
  ['privileged', {}, { securityContext: { privileged: true } }],
  ['hostPath', { volumes: [{ name: 'root', hostPath: { path: '/' } }] }, {}],
  ['host namespaces', { hostNetwork: true, hostPID: true, hostIPC: true }, {}],
  [
    'capabilities',
    {},
    { securityContext: { capabilities: { add: ['NET_ADMIN', 'SYS_ADMIN', 'CHOWN'] } } },
  ],
  [
    'hostPort',
    {},
    {
      ports: [
        { containerPort: 80, hostPort: 8080 },
        { containerPort: 81, hostPort: 443 },
      ],
    },
  ],
  ['seccomp unconfined', { securityContext: { seccompProfile: { type: 'Unconfined' } } }, {}],
  ['sysctls', { securityContext: { sysctls: [{ name: 'kernel.msgmax', value: '1' }] } }, {}],
  ['seLinux', {}, { securityContext: { seLinuxOptions: { type: 'spc_t', user: 'root' } } }],
  ['appArmor', {}, { securityContext: { appArmorProfile: { type: 'Unconfined' } } }],
  ['probe host', {}, { readinessProbe: { httpGet: { host: '10.0.0.1', port: 80 } } }],
];

export const POD_SECURITY_CASES: ConformanceCase[] = [
  {
    name: 'pod security: enforce baseline refuses each privileged field, naming it',
    run: async (t, ns, rec) => {
      const cur = await labelled(t, ns, 1, { [`${P}/enforce`]: 'baseline' });
      rec('plain pod', await tryPod(t, cur, pod('plain')));
      for (const [what, spec, container] of BASELINE_VIOLATIONS)
        rec(
          what,
          await tryPod(t, cur, pod(what.replace(/ /g, '-').toLowerCase(), spec, container)),
        );
      // Validation comes first: an invalid Pod is 422 whatever it would violate.
      rec(
        'invalid and privileged',
        await tryPod(t, cur, pod('Bad', {}, { securityContext: { privileged: true } })),
      );
      const all = pod(
        'all',
        { hostNetwork: true, volumes: [{ name: 'h', hostPath: { path: '/etc' } }] },
        {
          securityContext: { privileged: true, capabilities: { add: ['SYS_ADMIN'] } },
        },
      );
      (all['spec'] as Json)['initContainers'] = [
        { name: 'init', image: 'busybox', securityContext: { privileged: true } },
      ];
      rec('everything at once', await tryPod(t, cur, all));
      const generated = await tryPod(t, cur, {
        ...pod(''),
        metadata: { generateName: 'gen-' },
        spec: {
          containers: [{ name: 'c', image: 'busybox', securityContext: { privileged: true } }],
        },
      });
      // Admission sees the generated name; its random suffix differs between servers.
      rec(
        'generateName',
        JSON.parse(JSON.stringify(generated).replace(/gen-[a-z0-9]{5}/g, 'gen-<rand>')),
      );
    },
  },
  {
    name: 'pod security: enforce restricted, and an older enforce-version',
    run: async (t, ns, rec) => {
      let cur = await labelled(t, ns, 1, { [`${P}/enforce`]: 'restricted' });
      rec('plain pod', await tryPod(t, cur, pod('plain')));
      rec('compliant pod', await tryPod(t, cur, pod('ok', {}, RESTRICTED_OK)));
      rec(
        'pod-level settings',
        await tryPod(
          t,
          cur,
          pod(
            'podlevel',
            { securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } } },
            {
              securityContext: {
                allowPrivilegeEscalation: false,
                capabilities: { drop: ['ALL'], add: ['NET_BIND_SERVICE'] },
              },
            },
          ),
        ),
      );
      rec(
        'root user',
        await tryPod(
          t,
          cur,
          pod(
            'root',
            { securityContext: { runAsUser: 0 } },
            {
              securityContext: {
                ...(RESTRICTED_OK['securityContext'] as Json),
                runAsNonRoot: false,
                runAsUser: 0,
              },
            },
          ),
        ),
      );
      rec(
        'volume types',
        await tryPod(
          t,
          cur,
          pod(
            'vols',
            {
              volumes: [
                { name: 'a', hostPath: { path: '/' } },
                { name: 'b', nfs: { server: 'x', path: '/' } },
                { name: 'c', emptyDir: {} },
              ],
            },
            RESTRICTED_OK,
          ),
        ),
      );
      rec(
        'windows pod',
        await tryPod(
          t,
          cur,
          pod('win', { os: { name: 'windows' }, securityContext: { runAsNonRoot: true } }),
        ),
      );
      rec(
        'unmasked procMount in a user namespace',
        await tryPod(
          t,
          cur,
          pod(
            'procmount',
            { hostUsers: false },
            {
              securityContext: {
                ...(RESTRICTED_OK['securityContext'] as Json),
                procMount: 'Unmasked',
              },
            },
          ),
        ),
      );
      cur = await labelled(t, ns, 2, {
        [`${P}/enforce`]: 'restricted',
        [`${P}/enforce-version`]: 'v1.21',
      });
      rec(
        'v1.21',
        await tryPod(
          t,
          cur,
          pod(
            'old',
            {},
            {
              securityContext: {
                runAsNonRoot: true,
                seccompProfile: { type: 'RuntimeDefault' },
                capabilities: { add: ['SYS_ADMIN'] },
              },
            },
          ),
        ),
      );
    },
  },
  {
    name: 'pod security: warn and audit levels admit the Pod; warn adds Warning headers',
    run: async (t, ns, rec) => {
      let cur = await labelled(t, ns, 1, {
        [`${P}/warn`]: 'restricted',
        [`${P}/audit`]: 'baseline',
      });
      rec('plain pod', await tryPod(t, cur, pod('plain')));
      rec(
        'privileged pod',
        await tryPod(t, cur, pod('priv', {}, { securityContext: { privileged: true } })),
      );
      const enforced = {
        [`${P}/audit`]: 'baseline',
        [`${P}/enforce`]: 'baseline',
        [`${P}/enforce-version`]: 'v1.30',
      };
      cur = await labelled(t, ns, 2, enforced);
      // Without a warn label, warn follows a stricter enforce (and its version).
      rec('enforce baseline, warn defaulted', await tryPod(t, cur, pod('plain2')));
      cur = await labelled(t, ns, 3, {
        ...enforced,
        [`${P}/warn`]: 'restricted',
        [`${P}/warn-version`]: 'latest',
      });
      rec('enforce baseline, warn restricted', await tryPod(t, cur, pod('plain3')));
    },
  },
  {
    name: 'pod security: invalid labels are refused; tightening enforce warns about existing Pods',
    run: async (t, ns, rec) => {
      rec('bad level', observe(await label(t, ns, { [`${P}/enforce`]: 'strict' })));
      rec(
        'bad version',
        observe(await label(t, ns, { [`${P}/warn-version`]: '1.30', [`${P}/audit`]: 'none' })),
      );
      const other = `${ns}-bad`;
      rec(
        'create with bad label',
        observe(
          await t.request('POST', '/api/v1/namespaces', {
            body: {
              apiVersion: 'v1',
              kind: 'Namespace',
              metadata: { name: other, labels: { [`${P}/enforce`]: 'x' } },
            },
          }),
        ),
      );
      await t.request('DELETE', `/api/v1/namespaces/${other}`);
      for (const name of ['b', 'a', 'c'])
        await t.request('POST', `/api/v1/namespaces/${ns}/pods`, {
          body: pod(name, {}, name === 'c' ? { securityContext: { privileged: true } } : {}),
        });
      // kube checks the Pods its informer holds, which may lag the three creates just made.
      await untilWarningCovers(t, ns, { [`${P}/enforce`]: 'restricted' }, 3);
      const tighten = await label(t, ns, { [`${P}/enforce`]: 'restricted' });
      rec('tighten', { status: tighten.status, warning: tighten.headers['warning'] });
      const relax = await label(t, ns, { [`${P}/enforce`]: 'baseline' });
      rec('relax', { status: relax.status, warning: relax.headers['warning'] });
      rec('pod still there', (await t.request('GET', `/api/v1/namespaces/${ns}/pods/c`)).status);
    },
  },
];

/** Repeats a dry-run relabel until its warning names `pods` Pods, or 10 s pass. */
async function untilWarningCovers(
  t: Target,
  ns: string,
  labels: Record<string, string>,
  pods: number,
): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const r = await label(t, ns, labels, true);
    const warning = r.headers['warning'];
    if (podsWarned(typeof warning === 'string' ? warning : undefined) >= pods) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
