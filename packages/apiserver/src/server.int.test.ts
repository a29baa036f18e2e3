// The embedded API server through real clients: @kubernetes/client-node (CRUD, lists, selectors,
// informers across a restart) and the machine's kubectl.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  makeInformer,
  type V1ConfigMap,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readOurCrds } from './testing/our-crds.ts';
import { startTestApiServer, type TestApiServer } from './testing/test-server.ts';

function clients(kubeconfigPath: string): {
  core: CoreV1Api;
  custom: CustomObjectsApi;
  kc: KubeConfig;
} {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  return { core: kc.makeApiClient(CoreV1Api), custom: kc.makeApiClient(CustomObjectsApi), kc };
}

const run = promisify(execFile);

/** kubectl in a child process, asynchronously: the server runs in this process's event loop. */
async function kubectl(s: TestApiServer, args: string[], input?: string): Promise<string> {
  const child = run('kubectl', args, {
    env: { ...process.env, KUBECONFIG: s.kubeconfigPath },
    encoding: 'utf8',
  });
  if (input !== undefined) {
    child.child.stdin?.end(input);
  }
  return (await child).stdout;
}

describe('embedded API server', () => {
  let s: TestApiServer;
  beforeAll(async () => {
    s = await startTestApiServer({ crds: readOurCrds() });
  });
  afterAll(async () => {
    await s.close();
  });

  it('serves ConfigMap create, get, list with a label selector, update and delete', async () => {
    const { core } = clients(s.kubeconfigPath);
    const created = await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'cm1', labels: { app: 'a' } }, data: { k: 'v' } },
    });
    expect(created.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);
    await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'cm2', labels: { app: 'b' } } },
    });
    const listed = await core.listNamespacedConfigMap({
      namespace: 'default',
      labelSelector: 'app=a',
    });
    expect(listed.items.map((i) => i.metadata?.name)).toEqual(['cm1']);
    const got = await core.readNamespacedConfigMap({ name: 'cm1', namespace: 'default' });
    got.data = { k: 'w' };
    const updated = await core.replaceNamespacedConfigMap({
      name: 'cm1',
      namespace: 'default',
      body: got,
    });
    expect(Number(updated.metadata?.resourceVersion)).toBeGreaterThan(
      Number(got.metadata?.resourceVersion),
    );
    await expect(
      core.replaceNamespacedConfigMap({ name: 'cm1', namespace: 'default', body: got }),
    ).rejects.toMatchObject({ code: 409 });
    await core.deleteNamespacedConfigMap({ name: 'cm1', namespace: 'default' });
    await expect(
      core.readNamespacedConfigMap({ name: 'cm1', namespace: 'default' }),
    ).rejects.toMatchObject({ code: 404 });
  });

  it('pages lists with limit and continue', async () => {
    const { core } = clients(s.kubeconfigPath);
    for (let i = 0; i < 5; i++) {
      await core.createNamespacedConfigMap({
        namespace: 'default',
        body: { metadata: { name: `page-${i}`, labels: { page: 'yes' } } },
      });
    }
    const first = await core.listNamespacedConfigMap({
      namespace: 'default',
      limit: 2,
      labelSelector: 'page=yes',
    });
    expect(first.items).toHaveLength(2);
    expect(first.metadata?._continue).toBeTruthy();
    const names = first.items.map((i) => i.metadata?.name);
    let token = first.metadata?._continue;
    while (token) {
      const next = await core.listNamespacedConfigMap({
        namespace: 'default',
        limit: 2,
        labelSelector: 'page=yes',
        _continue: token,
      });
      names.push(...next.items.map((i) => i.metadata?.name));
      token = next.metadata?._continue;
    }
    expect(names).toEqual(['page-0', 'page-1', 'page-2', 'page-3', 'page-4']);
  });

  it('creates Sandboxes with defaults and refuses invalid ones with kube-style causes', async () => {
    const { custom } = clients(s.kubeconfigPath);
    const body = {
      apiVersion: 'agents.x-k8s.io/v1beta1',
      kind: 'Sandbox',
      metadata: { name: 'sb' },
      spec: { podTemplate: { spec: { containers: [{ name: 'main', image: 'busybox' }] } } },
    };
    const created = (await custom.createNamespacedCustomObject({
      group: 'agents.x-k8s.io',
      version: 'v1beta1',
      namespace: 'default',
      plural: 'sandboxes',
      body,
    })) as { spec: { operatingMode: string }; metadata: { generation: number } };
    expect(created.spec.operatingMode).toBe('Running');
    expect(created.metadata.generation).toBe(1);
    const bad = {
      ...body,
      metadata: { name: 'bad' },
      spec: { ...body.spec, operatingMode: 'Paused' },
    };
    const err = await custom
      .createNamespacedCustomObject({
        group: 'agents.x-k8s.io',
        version: 'v1beta1',
        namespace: 'default',
        plural: 'sandboxes',
        body: bad,
      })
      .catch((e: unknown) => e as { code: number; body: string });
    expect(err.code).toBe(422);
    const status = JSON.parse(err.body) as {
      reason: string;
      message: string;
      details: { causes: { field: string }[] };
    };
    expect(status.reason).toBe('Invalid');
    // The schema error, plus kube's notice that the CEL rules were skipped (semantics doc §7.3).
    expect(status.message).toBe(
      'Sandbox.agents.x-k8s.io "bad" is invalid: [spec.operatingMode: Unsupported value: "Paused": supported values: "Running", "Suspended", <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]',
    );
    expect(status.details.causes[0]?.field).toBe('spec.operatingMode');
  });

  it('keeps an informer in sync', async () => {
    const { core, kc } = clients(s.kubeconfigPath);
    const informer = makeInformer<V1ConfigMap>(kc, '/api/v1/namespaces/default/configmaps', () =>
      core.listNamespacedConfigMap({ namespace: 'default' }),
    );
    const seen: string[] = [];
    informer.on('add', (o) => seen.push(`add:${o.metadata?.name}`));
    informer.on('update', (o) => seen.push(`update:${o.metadata?.name}`));
    informer.on('delete', (o) => seen.push(`delete:${o.metadata?.name}`));
    await informer.start();
    await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'watched' } },
    });
    await core
      .patchNamespacedConfigMap({
        name: 'watched',
        namespace: 'default',
        body: [{ op: 'add', path: '/data', value: { a: 'b' } }],
      })
      .catch(async () => {
        const cur = await core.readNamespacedConfigMap({ name: 'watched', namespace: 'default' });
        cur.data = { a: 'b' };
        await core.replaceNamespacedConfigMap({ name: 'watched', namespace: 'default', body: cur });
      });
    await core.deleteNamespacedConfigMap({ name: 'watched', namespace: 'default' });
    await expect
      .poll(() => seen.filter((e) => e.endsWith(':watched')), { timeout: 5000 })
      .toEqual(['add:watched', 'update:watched', 'delete:watched']);
    await informer.stop();
  });

  it('works with kubectl get, create and delete', async () => {
    expect(await kubectl(s, ['get', 'namespaces', '-o', 'name'])).toContain('namespace/default');
    const manifest = JSON.stringify({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'team-a' },
    });
    expect(await kubectl(s, ['create', '--validate=false', '-f', '-'], manifest)).toContain(
      'namespace/team-a created',
    );
    expect(await kubectl(s, ['get', 'ns', 'team-a', '-o', 'jsonpath={.metadata.name}'])).toBe(
      'team-a',
    );
    expect(await kubectl(s, ['api-resources', '--api-group=agents.x-k8s.io', '-o', 'name'])).toBe(
      'sandboxes.agents.x-k8s.io\n',
    );
  });
});

describe('embedded API server restarts', () => {
  it('keeps every object across a restart on the same database file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'apiserver-restart-'));
    const dbPath = join(dir, 'state.db');
    try {
      const first = await startTestApiServer({ dbPath });
      const { core } = clients(first.kubeconfigPath);
      await core.createNamespacedConfigMap({
        namespace: 'default',
        body: { metadata: { name: 'durable' }, data: { x: '1' } },
      });
      const before = await core.readNamespacedConfigMap({ name: 'durable', namespace: 'default' });
      await first.close();
      const second = await startTestApiServer({ dbPath });
      const after = await clients(second.kubeconfigPath).core.readNamespacedConfigMap({
        name: 'durable',
        namespace: 'default',
      });
      expect(after.metadata?.resourceVersion).toBe(before.metadata?.resourceVersion);
      expect(after.data).toEqual({ x: '1' });
      await second.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('TokenReview', () => {
  it('answers whether a token is the server token and stores nothing', async () => {
    const { ApiServer } = await import('./server.ts');
    const { openStore } = await import('./storage/index.ts');
    const store = openStore({ path: ':memory:' });
    const server = new ApiServer({ store, token: 'secret-token', controllers: false });
    server.start();
    const review = (token: string) =>
      server.handle(
        new Request('http://x/apis/authentication.k8s.io/v1/tokenreviews', {
          method: 'POST',
          headers: { Authorization: 'Bearer secret-token', 'Content-Type': 'application/json' },
          body: JSON.stringify({
            apiVersion: 'authentication.k8s.io/v1',
            kind: 'TokenReview',
            spec: { token },
          }),
        }),
      );
    const good = (await (await review('secret-token')).json()) as {
      status: { authenticated?: boolean };
    };
    const bad = (await (await review('nope')).json()) as {
      status: { authenticated?: boolean; error?: string };
    };
    expect(good.status.authenticated).toBe(true);
    expect(bad.status.authenticated).toBeUndefined();
    expect(bad.status.error).toBe('invalid bearer token');
    server.stop();
    store.close();
  });
});
