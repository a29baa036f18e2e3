// The router component on a real data dir: its URL is the `router` endpoint and serves /healthz
// and upstream's 400s; with a node it publishes the Service, the hostNetwork mirror Pod (Running,
// its `proxy` port the router's), and the Endpoints, replaces the Pod when a new run listens
// elsewhere, and deletes it on stop. The router itself runs as its own narrowed user; the
// publication is the composition root's, as the admin. kubectl's port-forward through it is in
// python-sdk-up.int.test.ts (it needs the node agent).
import { KubeClient, PODS, SERVICES } from '@agent-sandbox/kube';
import { NODES } from '@agent-sandbox/kubelet';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROUTER_ROLE } from '@agent-sandbox/api';
import { ROUTER_USER } from './identities.ts';
import { ROUTER_NAMESPACE, ROUTER_POD, ROUTER_SERVICE, startEmbedded } from './index.ts';

const ENDPOINTS = { group: '', version: 'v1', plural: 'endpoints', namespaced: true };
const CLUSTER_ROLE_BINDINGS = {
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  plural: 'clusterrolebindings',
  namespaced: false,
};

type Json = Record<string, unknown>;
const at = (o: unknown, ...path: (string | number)[]): unknown =>
  path.reduce<unknown>((v, k) => (v as Record<string | number, unknown> | undefined)?.[k], o);

/** What a SubjectAccessReview answers for the router's user. */
async function routerMay(client: KubeClient, attributes: Record<string, string>): Promise<boolean> {
  const review = (await client.request(
    'POST',
    '/apis/authorization.k8s.io/v1/subjectaccessreviews',
    {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: { user: ROUTER_USER, groups: ['system:authenticated'], resourceAttributes: attributes },
    },
  )) as { status: { allowed: boolean } };
  return review.status.allowed;
}

/**
 * The router runs under its own user, bound by the composition root, which also published it:
 * that user could not have written the Service or the mirror Pod.
 */
async function expectRouterIdentity(client: KubeClient): Promise<void> {
  const binding = await client.get(CLUSTER_ROLE_BINDINGS, undefined, `${ROUTER_ROLE}-embedded`);
  expect(at(binding, 'subjects', 0)).toMatchObject({ kind: 'User', name: ROUTER_USER });
  const ns = ROUTER_NAMESPACE;
  expect(await routerMay(client, { verb: 'watch', resource: 'pods' })).toBe(true);
  expect(await routerMay(client, { verb: 'list', resource: 'secrets' })).toBe(false);
  expect(await routerMay(client, { verb: 'create', resource: 'pods', namespace: ns })).toBe(false);
  expect(await routerMay(client, { verb: 'update', resource: 'services', namespace: ns })).toBe(
    false,
  );
}

describe('router component', () => {
  it('serves its URL and publishes svc/sandbox-router-svc backed by a mirror Pod', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'agent-sandbox-router-')), 'state');
    // A Node first, as the node agent registers it before the router starts in `up`.
    const seed = await startEmbedded({ apiServer: { dataDir: dir, port: 0 } });
    const seedClient = new KubeClient({ config: seed.apiServer.kubeConfig });
    await seedClient.create(NODES, {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'node-a' },
    });
    await seedClient.patch(
      NODES,
      undefined,
      'node-a',
      {
        type: 'merge',
        body: { status: { addresses: [{ type: 'InternalIP', address: '10.1.2.3' }] } },
      },
      { subresource: 'status' },
    );
    await seedClient.close();
    await seed.stop();

    const ports: number[] = [];
    let firstUid = '';
    for (const run of [1, 2]) {
      const handle = await startEmbedded({
        apiServer: { dataDir: dir, port: 0 },
        router: { nodeName: 'node-a' },
      });
      const client = new KubeClient({ config: handle.apiServer.kubeConfig });
      try {
        expect(handle.components).toEqual(['router']);
        const url = handle.endpoints['router'] ?? '';
        expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
        const health = await fetch(`${url}/healthz`);
        expect(await health.text()).toBe('{"status":"ok"}');
        const refused = await fetch(`${url}/execute`, { method: 'POST' });
        expect(refused.status).toBe(400);
        expect(await refused.json()).toEqual({ detail: 'X-Sandbox-ID header is required.' });
        const port = Number(new URL(url).port);
        ports.push(port);

        const svc = await client.get<Json & { metadata: object }>(
          SERVICES,
          ROUTER_NAMESPACE,
          ROUTER_SERVICE,
        );
        expect(at(svc, 'spec', 'selector')).toEqual({ app: 'sandbox-router' });
        expect(at(svc, 'spec', 'ports', 0)).toMatchObject({ port: 8080, targetPort: 'proxy' });
        const pod = await client.get<Json & { metadata: { uid?: string } }>(
          PODS,
          ROUTER_NAMESPACE,
          ROUTER_POD,
        );
        expect(at(pod, 'metadata', 'labels', 'app')).toBe('sandbox-router');
        expect(at(pod, 'metadata', 'annotations', 'kubernetes.io/config.mirror')).toBeDefined();
        expect(at(pod, 'spec', 'hostNetwork')).toBe(true);
        expect(at(pod, 'spec', 'nodeName')).toBe('node-a');
        expect(at(pod, 'spec', 'containers', 0, 'ports', 0)).toMatchObject({
          name: 'proxy',
          containerPort: port,
        });
        expect(at(pod, 'status', 'phase')).toBe('Running');
        expect(at(pod, 'status', 'podIP')).toBe('10.1.2.3');
        expect(at(pod, 'status', 'conditions')).toContainEqual(
          expect.objectContaining({ type: 'Ready', status: 'True' }),
        );
        const ep = await client.get(ENDPOINTS, ROUTER_NAMESPACE, ROUTER_SERVICE);
        expect(at(ep, 'subsets', 0, 'addresses', 0)).toMatchObject({
          ip: '10.1.2.3',
          targetRef: { name: ROUTER_POD, uid: pod.metadata.uid },
        });
        expect(at(ep, 'subsets', 0, 'ports', 0)).toMatchObject({ port });
        if (run === 1) firstUid = pod.metadata.uid ?? '';
        if (run === 1) await expectRouterIdentity(client);
        else expect(pod.metadata.uid).not.toBe(firstUid); // replaced, not left stale
      } finally {
        await handle.stop();
        await client.close();
      }
    }
    // Stopped: the mirror Pod is gone with the router it showed.
    const after = await startEmbedded({ apiServer: { dataDir: dir, port: 0 } });
    const client = new KubeClient({ config: after.apiServer.kubeConfig });
    try {
      await expect(client.get(PODS, ROUTER_NAMESPACE, ROUTER_POD)).rejects.toMatchObject({
        statusCode: 404,
      });
    } finally {
      await client.close();
      await after.stop();
    }
  }, 60_000);
});
