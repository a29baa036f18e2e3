// What code inside a sandbox can do with the service account token it holds (issue 14): nothing
// beyond what a binding grants, which is nothing. The token is a real TokenRequest bound to the
// sandbox's Pod, as the node agent would mount it. Every attempt gets kube-apiserver's 403,
// word for word, while the controller manager keeps reconciling under its own narrowed identity.
// One suite for both targets (sandbox-token.int.test.ts, sandbox-token.cluster.test.ts).
import {
  ApiError,
  KubeClient,
  kubeConfigFromFile,
  PODS,
  isNotFound,
  type KubeConfig,
} from '@agent-sandbox/kube';
import type { KubeObject } from '@agent-sandbox/kube-types';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  controllerClient,
  createNamespace,
  eventually,
  newSandbox,
  startSandboxController,
  type RunningController,
} from '@agent-sandbox/controllers/testing';
import { connectTarget, type TargetHandle, type TestTarget } from '../support/target.ts';

type Json = Record<string, unknown>;
const SERVICE_ACCOUNTS = { group: '', version: 'v1', plural: 'serviceaccounts', namespaced: true };
const ROLE_BINDINGS = {
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  plural: 'rolebindings',
  namespaced: true,
};
const SANDBOXES = {
  group: 'agents.x-k8s.io',
  version: 'v1beta1',
  plural: 'sandboxes',
  namespaced: true,
  kind: 'Sandbox',
};

interface Answer {
  status: number;
  body: Json;
}

/** Raw requests as one bearer token, so the answers are exactly what the server sent. */
function asToken(config: KubeConfig, token: string) {
  const client = new KubeClient({
    config: {
      server: config.server,
      namespace: config.namespace,
      insecureSkipTlsVerify: config.insecureSkipTlsVerify,
      ...(config.caPem !== undefined ? { caPem: config.caPem } : {}),
      token,
    },
  });
  return {
    client,
    async call(method: string, path: string, body?: unknown): Promise<Answer> {
      try {
        return { status: 200, body: (await client.request(method, path, body)) as Json };
      } catch (err: unknown) {
        if (!(err instanceof ApiError)) throw err;
        return { status: err.statusCode, body: err.status as unknown as Json };
      }
    },
  };
}

const forbidden = (
  user: string,
  verb: string,
  resource: string,
  group: string,
  ns: string,
  object?: string,
) => {
  const qualified = group === '' ? resource.split('/')[0] : `${resource.split('/')[0]}.${group}`;
  const subject = object ? `${qualified} "${object}"` : qualified;
  return `${subject} is forbidden: User "${user}" cannot ${verb} resource "${resource}" in API group "${group}" in the namespace "${ns}"`;
};

function pod(name: string, spec: Json): Json {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { containers: [{ name: 'c', image: 'busybox' }], ...spec },
  };
}
const PRIVILEGED = {
  containers: [{ name: 'c', image: 'busybox', securityContext: { privileged: true } }],
};
const HOST_ROOT = { volumes: [{ name: 'root', hostPath: { path: '/' } }] };

export function sandboxTokenSuite(target: TestTarget): void {
  describe(`a sandbox's service account token (${target})`, () => {
    let handle: TargetHandle;
    let admin: KubeClient;
    let adminConfig: KubeConfig;
    let controllerKube: KubeClient;
    let controller: RunningController;
    const id = randomBytes(3).toString('hex');
    const ns = `sbx-token-${id}`;
    const other = `sbx-other-${id}`;
    const sandboxUser = `system:serviceaccount:${ns}:default`;
    let sandbox: ReturnType<typeof asToken>;

    beforeAll(async () => {
      handle = await connectTarget(target);
      adminConfig = kubeConfigFromFile(handle.kubeconfigPath);
      admin = new KubeClient({ config: adminConfig });
      await createNamespace(admin, ns);
      await createNamespace(admin, other);
      // What the embedded mode puts on sandbox namespaces by default (ADR 0026).
      await admin.patch(
        { group: '', version: 'v1', plural: 'namespaces', namespaced: false },
        undefined,
        ns,
        {
          type: 'merge',
          body: { metadata: { labels: { 'pod-security.kubernetes.io/enforce': 'baseline' } } },
        },
      );
      await eventually(() => admin.list(SANDBOXES, ns), 60_000);
      // The controller's own identity on each target (ADR 0027 on the embedded server).
      controllerKube = await controllerClient(
        admin,
        adminConfig,
        ns,
        handle.controllerUser ? { embeddedUser: handle.controllerUser } : {},
      );
      controller = startSandboxController(controllerKube, ns);
      for (const name of ['mine', 'neighbour'])
        await admin.create(SANDBOXES, newSandbox(ns, name) as unknown as KubeObject);
      const mine = await eventually(
        () => admin.get<KubeObject>(PODS, ns, 'mine').catch(() => undefined),
        60_000,
      );
      await admin.create({ group: '', version: 'v1', plural: 'configmaps', namespaced: true }, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'elsewhere', namespace: other },
      } as KubeObject);
      // The default ServiceAccount's token, bound to the sandbox's Pod, as the node agent mounts it.
      await eventually(
        () => admin.get(SERVICE_ACCOUNTS, ns, 'default').catch(() => undefined),
        60_000,
      );
      const issued = (await admin.request(
        'POST',
        `/api/v1/namespaces/${ns}/serviceaccounts/default/token`,
        {
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'TokenRequest',
          spec: {
            boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'mine', uid: mine.metadata.uid },
          },
        },
      )) as { status: { token: string } };
      sandbox = asToken(adminConfig, issued.status.token);
    }, 180_000);

    afterAll(async () => {
      await controller?.stop();
      await controllerKube?.close();
      await sandbox?.client.close();
      for (const n of [ns, other])
        await admin
          ?.delete(
            { group: '', version: 'v1', plural: 'namespaces', namespaced: false },
            undefined,
            n,
          )
          .catch(() => undefined);
      await admin?.close();
      await handle?.close();
    });

    it('cannot list Secrets', async () => {
      const res = await sandbox.call('GET', `/api/v1/namespaces/${ns}/secrets`);
      expect(res.status).toBe(403);
      expect(res.body['message']).toBe(forbidden(sandboxUser, 'list', 'secrets', '', ns));
    });

    it('cannot create a privileged or hostPath Pod', async () => {
      for (const spec of [PRIVILEGED, HOST_ROOT]) {
        const res = await sandbox.call(
          'POST',
          `/api/v1/namespaces/${ns}/pods`,
          pod('escape', spec),
        );
        expect(res.status).toBe(403);
        expect(res.body['message']).toBe(forbidden(sandboxUser, 'create', 'pods', '', ns));
      }
    });

    it('cannot patch another Sandbox', async () => {
      const res = await sandbox.call(
        'PATCH',
        `/apis/agents.x-k8s.io/v1beta1/namespaces/${ns}/sandboxes/neighbour`,
        { spec: { replicas: 0 } },
      );
      expect(res.status).toBe(403);
      expect(res.body['message']).toBe(
        forbidden(sandboxUser, 'patch', 'sandboxes', 'agents.x-k8s.io', ns, 'neighbour'),
      );
    });

    it('cannot read another namespace', async () => {
      const res = await sandbox.call('GET', `/api/v1/namespaces/${other}/configmaps/elsewhere`);
      expect(res.status).toBe(403);
      expect(res.body['message']).toBe(
        forbidden(sandboxUser, 'get', 'configmaps', '', other, 'elsewhere'),
      );
    });

    it('cannot escalate through a RoleBinding, even when allowed to create one', async () => {
      const binding = {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'escape' },
        roleRef: {
          apiGroup: 'rbac.authorization.k8s.io',
          kind: 'ClusterRole',
          name: 'cluster-admin',
        },
        subjects: [{ kind: 'ServiceAccount', name: 'default', namespace: ns }],
      };
      const path = `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`;
      const res = await sandbox.call('POST', path, binding);
      expect(res.status).toBe(403);
      expect(res.body['message']).toBe(
        forbidden(sandboxUser, 'create', 'rolebindings', 'rbac.authorization.k8s.io', ns),
      );
      // A misconfigured grant of rolebindings/create still cannot hand out more than it holds.
      await admin.create(
        { group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'roles', namespaced: true },
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'Role',
          metadata: { name: 'binder', namespace: ns },
          rules: [
            {
              apiGroups: ['rbac.authorization.k8s.io'],
              resources: ['rolebindings'],
              verbs: ['create'],
            },
          ],
        } as KubeObject,
      );
      await admin.create(ROLE_BINDINGS, {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'binder', namespace: ns },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'binder' },
        subjects: [{ kind: 'ServiceAccount', name: 'default', namespace: ns }],
      } as KubeObject);
      const escalated = await eventually(async () => {
        const r = await sandbox.call('POST', path, binding);
        return r.body['message'] !==
          forbidden(sandboxUser, 'create', 'rolebindings', 'rbac.authorization.k8s.io', ns)
          ? r
          : undefined;
      }, 30_000);
      expect(escalated.status).toBe(403);
      expect(escalated.body['message']).toBe(
        `rolebindings.rbac.authorization.k8s.io "escape" is forbidden: user "${sandboxUser}" (groups=["system:serviceaccounts" "system:serviceaccounts:${ns}" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:["*"], Resources:["*"], Verbs:["*"]}\n{NonResourceURLs:["*"], Verbs:["*"]}`,
      );
    });

    it('Pod Security refuses the privileged and hostPath Pods even for someone who may create Pods', async () => {
      await admin.create(SERVICE_ACCOUNTS, {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: 'dev', namespace: ns },
      } as KubeObject);
      await admin.create(ROLE_BINDINGS, {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'dev-edit', namespace: ns },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
        subjects: [{ kind: 'ServiceAccount', name: 'dev', namespace: ns }],
      } as KubeObject);
      const issued = (await admin.request(
        'POST',
        `/api/v1/namespaces/${ns}/serviceaccounts/dev/token`,
        {
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'TokenRequest',
          spec: {},
        },
      )) as { status: { token: string } };
      const dev = asToken(adminConfig, issued.status.token);
      try {
        const want: [Json, string][] = [
          [PRIVILEGED, 'privileged (container "c" must not set securityContext.privileged=true)'],
          [HOST_ROOT, 'hostPath volumes (volume "root")'],
        ];
        for (const [spec, why] of want) {
          const res = await eventually(async () => {
            const r = await dev.call(
              'POST',
              `/api/v1/namespaces/${ns}/pods?dryRun=All`,
              pod('escape', spec),
            );
            return r.body['message'] ===
              forbidden(`system:serviceaccount:${ns}:dev`, 'create', 'pods', '', ns)
              ? undefined
              : r;
          }, 30_000);
          expect(res.status).toBe(403);
          expect(res.body['message']).toBe(
            `pods "escape" is forbidden: violates PodSecurity "baseline:latest": ${why}`,
          );
        }
      } finally {
        await dev.client.close();
      }
    });

    it('the controller keeps working under its own identity, which cannot read Secrets either', async () => {
      await admin.delete(PODS, ns, 'neighbour');
      await eventually(async () => {
        const p = await admin
          .get<KubeObject>(PODS, ns, 'neighbour')
          .catch((e: unknown) => (isNotFound(e) ? undefined : Promise.reject(e)));
        return p && p.metadata.deletionTimestamp === undefined ? p : undefined;
      }, 60_000);
      const own = await controllerKube
        .request('GET', `/api/v1/namespaces/${ns}/secrets`)
        .catch((e: unknown) => e);
      expect(own instanceof ApiError && own.statusCode).toBe(403);
    });
  });
}
