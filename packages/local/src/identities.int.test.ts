// Each component's identity on a real embedded API server (issue 14): the node agent is a node
// (its Pods, what they mount, its Node and Lease; nothing of other nodes' Pods), the router only
// reads, the controller manager holds our controller roles and nothing more. Every refusal is
// kube's 403, word for word.
import { SANDBOXES } from '@agent-sandbox/controllers';
import {
  ApiError,
  CONFIG_MAPS,
  KubeClient,
  LEASES,
  NAMESPACES,
  PODS,
  SECRETS,
  type ResourceRef,
} from '@agent-sandbox/kube';
import type { KubeObject } from '@agent-sandbox/kube-types';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedApiServer, type EmbeddedApiServer } from './api-server.ts';
import {
  controllerManagerIdentity,
  grant,
  issueTokens,
  kubeConfigWithToken,
  nodeIdentity,
  routerIdentity,
} from './identities.ts';

const NODES: ResourceRef = { group: '', version: 'v1', plural: 'nodes', namespaced: false };
const CLUSTER_ROLE_BINDINGS: ResourceRef = {
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  plural: 'clusterrolebindings',
  namespaced: false,
};
const NS = 'team';
const NODE = 'node-a';

/** The message of the ApiError `call` rejects with (403 asserted). */
async function forbidden(call: Promise<unknown>): Promise<string> {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof ApiError)) throw new Error(`expected a 403, got ${String(err)}`);
  expect(err.status).toMatchObject({ code: 403, reason: 'Forbidden' });
  return err.status.message ?? '';
}

const cannot = (user: string, verb: string, resource: string, group: string, ns?: string) =>
  `User "${user}" cannot ${verb} resource "${resource}" in API group "${group}" ${ns ? `in the namespace "${ns}"` : 'at the cluster scope'}`;

function pod(
  name: string,
  nodeName: string | undefined,
  spec: Record<string, unknown>,
): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: NS },
    spec: {
      ...(nodeName ? { nodeName } : {}),
      serviceAccountName: `${name}-sa`,
      containers: [{ name: 'c', image: 'busybox' }],
      ...spec,
    },
  } as KubeObject;
}
const mounting = (secret: string, configMap: string) => ({
  volumes: [
    { name: 's', secret: { secretName: secret } },
    { name: 'c', configMap: { name: configMap } },
  ],
});

// Every case runs over HTTPS and over the in-process transport `up` gives its components: the
// server must decide the same for both.
describe.each(['https', 'in-process'] as const)('component identities over %s', (transport) => {
  let server: EmbeddedApiServer;
  let admin: KubeClient;
  let node: KubeClient;
  let router: KubeClient;
  let controller: KubeClient;
  const nodeUser = `system:node:${NODE}`;

  beforeAll(async () => {
    const identities = [controllerManagerIdentity(true), routerIdentity(), nodeIdentity(NODE)];
    const tokens = issueTokens(identities);
    server = await startEmbeddedApiServer({
      dataDir: join(mkdtempSync(join(tmpdir(), 'agent-sandbox-identities-')), 'state'),
      port: 0,
      users: tokens,
    });
    admin = new KubeClient({ config: server.kubeConfig });
    await grant(admin, identities);
    await grant(admin, identities); // idempotent: a restart finds them in place
    const as = (i: number) =>
      new KubeClient({
        config: kubeConfigWithToken(server.kubeConfig, tokens[i]?.token ?? ''),
        ...(transport === 'in-process' ? { fetch: server.fetch } : {}),
      });
    [controller, router, node] = [as(0), as(1), as(2)];
    await admin.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    for (const name of ['mine', 'theirs']) {
      await admin.create(SECRETS, {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name, namespace: NS },
        stringData: { key: 'value' },
      } as KubeObject);
      await admin.create(CONFIG_MAPS, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace: NS },
      } as KubeObject);
      await admin.create(
        { group: '', version: 'v1', plural: 'serviceaccounts', namespaced: true },
        {
          apiVersion: 'v1',
          kind: 'ServiceAccount',
          metadata: { name: `${name}-sa`, namespace: NS },
        },
      );
    }
    await admin.create(PODS, pod('mine', NODE, mounting('mine', 'mine')));
    await admin.create(PODS, pod('theirs', 'node-b', mounting('theirs', 'theirs')));
  }, 60_000);

  afterAll(async () => {
    for (const c of [admin, node, router, controller]) await c?.close();
    await server?.stop();
  });

  it('node: reads what its Pods mount, and nothing a Pod of another node mounts', async () => {
    expect((await node.get(SECRETS, NS, 'mine')).metadata.name).toBe('mine');
    expect((await node.get(CONFIG_MAPS, NS, 'mine')).metadata.name).toBe('mine');
    const why = `no relationship found between node '${NODE}' and this object`;
    expect(await forbidden(node.get(SECRETS, NS, 'theirs'))).toBe(
      `secrets "theirs" is forbidden: ${cannot(nodeUser, 'get', 'secrets', '', NS)}: ${why}`,
    );
    expect(await forbidden(node.get(CONFIG_MAPS, NS, 'theirs'))).toBe(
      `configmaps "theirs" is forbidden: ${cannot(nodeUser, 'get', 'configmaps', '', NS)}: ${why}`,
    );
    expect(await forbidden(node.list(SECRETS, NS))).toBe(
      `secrets is forbidden: ${cannot(nodeUser, 'list', 'secrets', '', NS)}: can only get individual resources of this type`,
    );
    expect(await forbidden(node.list(SECRETS))).toContain(cannot(nodeUser, 'list', 'secrets', ''));
  });

  it('node: writes status and deletes only Pods bound to it; creates no Pod', async () => {
    const status = { type: 'merge' as const, body: { status: { phase: 'Running' } } };
    await node.patch(PODS, NS, 'mine', status, { subresource: 'status' });
    expect(await forbidden(node.patch(PODS, NS, 'theirs', status, { subresource: 'status' }))).toBe(
      `pods "theirs" is forbidden: ${cannot(nodeUser, 'patch', 'pods/status', '', NS)}: no relationship found between node '${NODE}' and this object`,
    );
    expect(await forbidden(node.delete(PODS, NS, 'theirs'))).toContain(
      cannot(nodeUser, 'delete', 'pods', '', NS),
    );
    expect(await forbidden(node.create(PODS, pod('new', NODE, {})))).toContain(
      cannot(nodeUser, 'create', 'pods', '', NS),
    );
    // Tokens only for the ServiceAccount a Pod of its own runs as.
    const token = (sa: string) =>
      node.request('POST', `/api/v1/namespaces/${NS}/serviceaccounts/${sa}/token`, {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        spec: {},
      });
    await token('mine-sa');
    expect(await forbidden(token('theirs-sa'))).toContain(
      cannot(nodeUser, 'create', 'serviceaccounts/token', '', NS),
    );
  });

  it('node: its own Node and Lease, no other node, no namespaces', async () => {
    for (const name of [NODE, 'node-b'])
      await admin.create(NODES, { apiVersion: 'v1', kind: 'Node', metadata: { name } });
    const label = { type: 'merge' as const, body: { metadata: { labels: { a: 'b' } } } };
    await node.patch(NODES, undefined, NODE, label);
    expect(await forbidden(node.patch(NODES, undefined, 'node-b', label))).toContain(
      cannot(nodeUser, 'patch', 'nodes', ''),
    );
    const lease = (name: string) =>
      ({
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name, namespace: 'kube-node-lease' },
        spec: { holderIdentity: name },
      }) as KubeObject;
    await node.create(LEASES, lease(NODE));
    await node.get(LEASES, 'kube-node-lease', NODE);
    expect(await forbidden(node.get(LEASES, 'kube-node-lease', 'node-b'))).toContain(
      'can only access node lease with the same name as the requesting node',
    );
    expect(
      await forbidden(
        node.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x' } }),
      ),
    ).toContain(cannot(nodeUser, 'create', 'namespaces', ''));
  });

  it('router: reads Pods and Sandboxes, patches only Sandboxes, reads no Secret', async () => {
    const user = 'agent-sandbox:router';
    expect((await router.list(PODS, NS)).items).toHaveLength(2);
    await router.list(SANDBOXES, NS);
    // Wake-on-request's patch is authorized: the Sandbox's absence is what answers.
    await expect(
      router.patch(SANDBOXES, NS, 'absent', { type: 'merge', body: { spec: {} } }),
    ).rejects.toMatchObject({ statusCode: 404 });
    expect(await forbidden(router.list(SECRETS))).toBe(
      `secrets is forbidden: ${cannot(user, 'list', 'secrets', '')}`,
    );
    expect(
      await forbidden(router.patch(PODS, NS, 'mine', { type: 'merge', body: { metadata: {} } })),
    ).toBe(`pods "mine" is forbidden: ${cannot(user, 'patch', 'pods', '', NS)}`);
    expect(await forbidden(router.create(PODS, pod('new', undefined, {})))).toBe(
      `pods is forbidden: ${cannot(user, 'create', 'pods', '', NS)}`,
    );
    expect(await forbidden(router.delete(PODS, NS, 'mine'))).toBe(
      `pods "mine" is forbidden: ${cannot(user, 'delete', 'pods', '', NS)}`,
    );
    expect(await forbidden(router.get(SECRETS, NS, 'mine'))).toBe(
      `secrets "mine" is forbidden: ${cannot(user, 'get', 'secrets', '', NS)}`,
    );
  });

  it('controller manager: its controller roles, no Secrets, no RBAC, no namespaces', async () => {
    const user = 'agent-sandbox:controller-manager';
    await controller.list(SANDBOXES);
    await controller.list(PODS);
    expect(await forbidden(controller.get(SECRETS, NS, 'mine'))).toBe(
      `secrets "mine" is forbidden: ${cannot(user, 'get', 'secrets', '', NS)}`,
    );
    expect(
      await forbidden(
        controller.create(NAMESPACES, {
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name: 'y' },
        }),
      ),
    ).toContain(cannot(user, 'create', 'namespaces', ''));
    const escalate = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'mine' },
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: 'cluster-admin',
      },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
    } as KubeObject;
    expect(await forbidden(controller.create(CLUSTER_ROLE_BINDINGS, escalate))).toContain(
      cannot(user, 'create', 'clusterrolebindings', 'rbac.authorization.k8s.io'),
    );
  });

  it('access reviews answer with the Node authorizer too', async () => {
    const review = (name: string) =>
      admin.request('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: {
          user: nodeUser,
          groups: ['system:nodes', 'system:authenticated'],
          resourceAttributes: { verb: 'get', resource: 'secrets', namespace: NS, name },
        },
      }) as Promise<{ status: { allowed: boolean; reason?: string } }>;
    expect((await review('mine')).status).toEqual({ allowed: true });
    expect((await review('theirs')).status).toEqual({
      allowed: false,
      reason: `no relationship found between node '${NODE}' and this object`,
    });
  });
});
