// Must show (issue 4): the machine's kubectl 1.32 against the embedded API server — apply
// (client-side and --server-side), get -o yaml|wide|jsonpath, describe. The server-side apply
// conflict output was checked with this kubectl against a real kube-apiserver 1.32 (test/cluster).
import { beforeAll, describe, expect, it } from 'vitest';
import { condition, sandboxManifest, uniqueName, useKubectlServer } from './support.ts';

const env = useKubectlServer('kubectl');
const sandboxes = `/apis/agents.x-k8s.io/v1beta1/namespaces/${env.ns}/sandboxes`;

async function getSandbox(name: string): Promise<Record<string, unknown>> {
  const r = await env.api.get(`${sandboxes}/${name}`);
  expect(r.status).toBe(200);
  return r.body;
}

describe('kubectl apply', () => {
  it('client-side: created, configured with the last-applied annotation, unchanged', async () => {
    const name = uniqueName('csa');
    const created = await env.kubectl.ok(['apply', '-f', '-'], sandboxManifest(name, env.ns));
    expect(created.trim()).toBe(`sandbox.agents.x-k8s.io/${name} created`);

    const changed = await env.kubectl.ok(
      ['apply', '-f', '-'],
      sandboxManifest(name, env.ns, 'alpine:3.20'),
    );
    expect(changed.trim()).toBe(`sandbox.agents.x-k8s.io/${name} configured`);
    const again = await env.kubectl.ok(
      ['apply', '-f', '-'],
      sandboxManifest(name, env.ns, 'alpine:3.20'),
    );
    expect(again.trim()).toBe(`sandbox.agents.x-k8s.io/${name} unchanged`);

    const obj = await env.api.get(`${sandboxes}/${name}`);
    const lastApplied =
      obj.body.metadata?.annotations?.['kubectl.kubernetes.io/last-applied-configuration'];
    expect(JSON.parse(lastApplied ?? '{}')).toMatchObject({
      kind: 'Sandbox',
      metadata: { name, namespace: env.ns },
      spec: { podTemplate: { spec: { containers: [{ name: 'agent', image: 'alpine:3.20' }] } } },
    });
    expect(obj.body.metadata?.generation).toBe(2);
    const managers = obj.body.metadata?.managedFields?.map((m) => m.manager) ?? [];
    expect(managers).toContain('kubectl-client-side-apply');
  });

  it('client-side: a field dropped from the manifest is removed (three-way merge)', async () => {
    const name = uniqueName('csa-prune');
    const labelled = (labels: string): string =>
      sandboxManifest(name, env.ns).replace('metadata:\n', `metadata:\n  labels: {${labels}}\n`);
    await env.kubectl.ok(['apply', '-f', '-'], labelled('keep: a, drop: b'));
    // A label added by someone else is not in last-applied, so apply leaves it alone.
    await env.kubectl.ok(['label', 'sandbox', name, '-n', env.ns, 'other=c']);
    const out = await env.kubectl.ok(['apply', '-f', '-'], labelled('keep: a'));
    expect(out.trim()).toBe(`sandbox.agents.x-k8s.io/${name} configured`);
    expect((await getSandbox(name)).metadata).toMatchObject({
      labels: { keep: 'a', other: 'c' },
      generation: 1,
    });
    expect(await getSandbox(name)).not.toHaveProperty('metadata.labels.drop');
  });

  it('--server-side: serverside-applied, a conflict, then --force-conflicts', async () => {
    const name = uniqueName('ssa');
    const cm = (v: string): string =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}, namespace: ${env.ns}}\ndata: {k: ${v}}\n`;
    const first = await env.kubectl.ok(['apply', '--server-side', '-f', '-'], cm('one'));
    expect(first.trim()).toBe(`configmap/${name} serverside-applied`);

    const conflict = await env.kubectl.run(
      ['apply', '--server-side', '--field-manager=other', '-f', '-'],
      cm('two'),
    );
    expect(conflict.code).toBe(1);
    expect(conflict.stderr).toContain(
      'error: Apply failed with 1 conflict: conflict with "kubectl": .data.k',
    );
    expect(conflict.stderr).toContain('--force-conflicts');

    const forced = await env.kubectl.ok(
      ['apply', '--server-side', '--field-manager=other', '--force-conflicts', '-f', '-'],
      cm('two'),
    );
    expect(forced.trim()).toBe(`configmap/${name} serverside-applied`);
    const got = await env.api.get(`/api/v1/namespaces/${env.ns}/configmaps/${name}`);
    expect(got.body.data).toEqual({ k: 'two' });
    // kubectl lost its only field, so its entry is gone (as on kube-apiserver).
    expect(got.body.metadata?.managedFields?.map((m) => m.manager)).toEqual(['other']);
  });

  it('--server-side on a Sandbox creates it and later applies change the spec', async () => {
    const name = uniqueName('ssa-sbx');
    const out = await env.kubectl.ok(
      ['apply', '--server-side', '-f', '-'],
      sandboxManifest(name, env.ns),
    );
    expect(out.trim()).toBe(`sandbox.agents.x-k8s.io/${name} serverside-applied`);
    await env.kubectl.ok(
      ['apply', '--server-side', '-f', '-'],
      sandboxManifest(name, env.ns, 'alpine:3.20'),
    );
    const obj = await getSandbox(name);
    expect(obj).toMatchObject({
      spec: { podTemplate: { spec: { containers: [{ name: 'agent', image: 'alpine:3.20' }] } } },
      metadata: { generation: 2, managedFields: [{ manager: 'kubectl', operation: 'Apply' }] },
    });
  });

  it('--server-side: a field dropped from the manifest is removed, then defaulted again', async () => {
    const name = uniqueName('ssa-pool');
    const pool = (spec: string): string =>
      `apiVersion: extensions.agents.x-k8s.io/v1beta1\nkind: SandboxWarmPool\n` +
      `metadata: {name: ${name}, namespace: ${env.ns}}\nspec: {sandboxTemplateRef: {name: t}${spec}}\n`;
    await env.kubectl.ok(
      ['apply', '--server-side', '-f', '-'],
      pool(', replicas: 4, updateStrategy: {type: Recreate}'),
    );
    await env.kubectl.ok(['apply', '--server-side', '-f', '-'], pool(''));
    const spec = await env.kubectl.ok([
      ...['get', 'sandboxwarmpool', name, '-n', env.ns, '-o', 'jsonpath={.spec}'],
    ]);
    expect(JSON.parse(spec)).toEqual({ replicas: 1, sandboxTemplateRef: { name: 't' } });
  });
});

describe('kubectl get and describe', () => {
  const name = uniqueName('shown');
  beforeAll(async () => {
    await env.kubectl.ok(['apply', '-f', '-'], sandboxManifest(name, env.ns));
    // No controller runs here: report Ready through the status subresource.
    const sandbox = await env.api.mergePatch(`${sandboxes}/${name}/status`, {
      status: { conditions: [condition('Ready', 'True', 'PodReady')] },
    });
    // An Event about it, as a controller would record one; describe lists it.
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    await env.api.create(`/api/v1/namespaces/${env.ns}/events`, {
      metadata: { name: `${name}.started` },
      involvedObject: {
        ...{ apiVersion: 'agents.x-k8s.io/v1beta1', kind: 'Sandbox', name, namespace: env.ns },
        uid: sandbox.metadata?.uid,
      },
      ...{ reason: 'Started', message: 'pod started', type: 'Normal', count: 1 },
      ...{ source: { component: 'sandbox-controller' }, firstTimestamp: now, lastTimestamp: now },
    });
  });

  it('-o yaml prints the whole object', async () => {
    const out = await env.kubectl.ok(['get', 'sandbox', name, '-n', env.ns, '-o', 'yaml']);
    expect(out).toMatch(/^apiVersion: agents\.x-k8s\.io\/v1beta1$/m);
    expect(out).toMatch(/^kind: Sandbox$/m);
    expect(out).toContain(`  name: ${name}\n`);
    expect(out).toContain('image: busybox:1.36');
    expect(out).toContain('reason: PodReady');
  });

  it('-o wide prints the printer columns', async () => {
    const out = await env.kubectl.ok(['get', 'sandboxes', '-n', env.ns, '-o', 'wide']);
    const lines = out.trim().split('\n');
    expect(lines[0]?.split(/\s+/)).toEqual(['NAME', 'READY', 'REASON', 'AGE']);
    const row = lines.find((l) => l.startsWith(`${name} `));
    expect(row?.split(/\s+/).slice(0, 3)).toEqual([name, 'True', 'PodReady']);
  });

  it('--chunk-size pages through a list with continue tokens', async () => {
    const names = [1, 2, 3].map((i) => `${name}-page${i}`);
    for (const n of names) await env.kubectl.ok(['create', 'configmap', n, '-n', env.ns]);
    const out = await env.kubectl.ok([
      ...['get', 'configmaps', '-n', env.ns, '--chunk-size=1', '-o', 'name'],
    ]);
    expect(out.trim().split('\n')).toEqual(
      expect.arrayContaining(names.map((n) => `configmap/${n}`)),
    );
  });

  it('-o jsonpath picks fields', async () => {
    const out = await env.kubectl.ok([
      'get',
      'sandbox',
      name,
      '-n',
      env.ns,
      '-o',
      'jsonpath={.metadata.name} {.spec.podTemplate.spec.containers[0].image} {.status.conditions[?(@.type=="Ready")].status}',
    ]);
    expect(out).toBe(`${name} busybox:1.36 True`);
  });

  it('describe sandbox', async () => {
    const out = await env.kubectl.ok(['describe', 'sandbox', name, '-n', env.ns]);
    expect(out).toMatch(new RegExp(`^Name:\\s+${name}$`, 'm'));
    expect(out).toMatch(new RegExp(`^Namespace:\\s+${env.ns}$`, 'm'));
    expect(out).toMatch(/^API Version:\s+agents\.x-k8s\.io\/v1beta1$/m);
    expect(out).toMatch(/^Kind:\s+Sandbox$/m);
    expect(out).toMatch(/^\s+Image:\s+busybox:1\.36$/m);
    expect(out).toMatch(/^\s+Reason:\s+PodReady$/m);
    expect(out).toMatch(/^Events:\n\s+Type\s+Reason\s+Age\s+From\s+Message$/m);
    expect(out).toMatch(/^\s+Normal\s+Started\s+\d+s\s+sandbox-controller\s+pod started$/m);
  });
});
