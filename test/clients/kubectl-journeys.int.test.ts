// Must show (issue 4): the machine's kubectl 1.32 against the embedded API server — apply
// (client-side and --server-side), get -o yaml|wide|jsonpath, describe, patch (merge, json,
// strategic), label, annotate, scale. The strategic-patch-of-a-CR error and the server-side apply
// conflict output were checked with this kubectl against a real kube-apiserver 1.32 (test/cluster).
import {
  startTestApiServer,
  readOurCrds,
  type TestApiServer,
} from '@agent-sandbox/apiserver/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Kubectl, RawClient, sandboxManifest, uniqueName } from './support.ts';

let s: TestApiServer;
let kubectl: Kubectl;
let api: RawClient;
const ns = uniqueName('kubectl');

beforeAll(async () => {
  s = await startTestApiServer({ crds: readOurCrds() });
  kubectl = new Kubectl(s.kubeconfigPath);
  api = new RawClient(s.url);
  await kubectl.ok(['create', 'namespace', ns]);
});

afterAll(async () => {
  await s?.close();
});

const sandboxes = `/apis/agents.x-k8s.io/v1beta1/namespaces/${ns}/sandboxes`;

async function getSandbox(name: string): Promise<Record<string, unknown>> {
  const r = await api.get(`${sandboxes}/${name}`);
  expect(r.status).toBe(200);
  return r.body;
}

describe('kubectl apply', () => {
  it('client-side: created, configured with the last-applied annotation, unchanged', async () => {
    const name = uniqueName('csa');
    const created = await kubectl.ok(['apply', '-f', '-'], sandboxManifest(name, ns));
    expect(created.trim()).toBe(`sandbox.agents.x-k8s.io/${name} created`);

    const changed = await kubectl.ok(
      ['apply', '-f', '-'],
      sandboxManifest(name, ns, 'alpine:3.20'),
    );
    expect(changed.trim()).toBe(`sandbox.agents.x-k8s.io/${name} configured`);
    const again = await kubectl.ok(['apply', '-f', '-'], sandboxManifest(name, ns, 'alpine:3.20'));
    expect(again.trim()).toBe(`sandbox.agents.x-k8s.io/${name} unchanged`);

    const obj = await api.get(`${sandboxes}/${name}`);
    const lastApplied =
      obj.body.metadata?.annotations?.['kubectl.kubernetes.io/last-applied-configuration'];
    expect(JSON.parse(lastApplied ?? '{}')).toMatchObject({
      kind: 'Sandbox',
      metadata: { name, namespace: ns },
      spec: { podTemplate: { spec: { containers: [{ name: 'agent', image: 'alpine:3.20' }] } } },
    });
    expect(obj.body.metadata?.generation).toBe(2);
    const managers = obj.body.metadata?.managedFields?.map((m) => m.manager) ?? [];
    expect(managers).toContain('kubectl-client-side-apply');
  });

  it('--server-side: serverside-applied, a conflict, then --force-conflicts', async () => {
    const name = uniqueName('ssa');
    const cm = (v: string): string =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}, namespace: ${ns}}\ndata: {k: ${v}}\n`;
    const first = await kubectl.ok(['apply', '--server-side', '-f', '-'], cm('one'));
    expect(first.trim()).toBe(`configmap/${name} serverside-applied`);

    const conflict = await kubectl.run(
      ['apply', '--server-side', '--field-manager=other', '-f', '-'],
      cm('two'),
    );
    expect(conflict.code).toBe(1);
    expect(conflict.stderr).toContain(
      'error: Apply failed with 1 conflict: conflict with "kubectl": .data.k',
    );
    expect(conflict.stderr).toContain('--force-conflicts');

    const forced = await kubectl.ok(
      ['apply', '--server-side', '--field-manager=other', '--force-conflicts', '-f', '-'],
      cm('two'),
    );
    expect(forced.trim()).toBe(`configmap/${name} serverside-applied`);
    const got = await api.get(`/api/v1/namespaces/${ns}/configmaps/${name}`);
    expect(got.body.data).toEqual({ k: 'two' });
    // kubectl lost its only field, so its entry is gone (as on kube-apiserver).
    expect(got.body.metadata?.managedFields?.map((m) => m.manager)).toEqual(['other']);
  });

  it('--server-side on a Sandbox creates it and later applies change the spec', async () => {
    const name = uniqueName('ssa-sbx');
    const out = await kubectl.ok(['apply', '--server-side', '-f', '-'], sandboxManifest(name, ns));
    expect(out.trim()).toBe(`sandbox.agents.x-k8s.io/${name} serverside-applied`);
    await kubectl.ok(
      ['apply', '--server-side', '-f', '-'],
      sandboxManifest(name, ns, 'alpine:3.20'),
    );
    const obj = await getSandbox(name);
    expect(obj).toMatchObject({
      spec: { podTemplate: { spec: { containers: [{ name: 'agent', image: 'alpine:3.20' }] } } },
      metadata: { generation: 2, managedFields: [{ manager: 'kubectl', operation: 'Apply' }] },
    });
  });
});

describe('kubectl get and describe', () => {
  const name = uniqueName('shown');
  beforeAll(async () => {
    await kubectl.ok(['apply', '-f', '-'], sandboxManifest(name, ns));
    // No controller runs here: report Ready through the status subresource.
    await api.mergePatch(`${sandboxes}/${name}/status`, {
      status: {
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'PodReady',
            message: 'the pod is ready',
            lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
          },
        ],
      },
    });
  });

  it('-o yaml prints the whole object', async () => {
    const out = await kubectl.ok(['get', 'sandbox', name, '-n', ns, '-o', 'yaml']);
    expect(out).toMatch(/^apiVersion: agents\.x-k8s\.io\/v1beta1$/m);
    expect(out).toMatch(/^kind: Sandbox$/m);
    expect(out).toContain(`  name: ${name}\n`);
    expect(out).toContain('image: busybox:1.36');
    expect(out).toContain('reason: PodReady');
  });

  it('-o wide prints the printer columns', async () => {
    const out = await kubectl.ok(['get', 'sandboxes', '-n', ns, '-o', 'wide']);
    const lines = out.trim().split('\n');
    expect(lines[0]?.split(/\s+/)).toEqual(['NAME', 'READY', 'REASON', 'AGE']);
    const row = lines.find((l) => l.startsWith(`${name} `));
    expect(row?.split(/\s+/).slice(0, 3)).toEqual([name, 'True', 'PodReady']);
  });

  it('-o jsonpath picks fields', async () => {
    const out = await kubectl.ok([
      'get',
      'sandbox',
      name,
      '-n',
      ns,
      '-o',
      'jsonpath={.metadata.name} {.spec.podTemplate.spec.containers[0].image} {.status.conditions[?(@.type=="Ready")].status}',
    ]);
    expect(out).toBe(`${name} busybox:1.36 True`);
  });

  it('describe sandbox', async () => {
    const out = await kubectl.ok(['describe', 'sandbox', name, '-n', ns]);
    expect(out).toMatch(new RegExp(`^Name:\\s+${name}$`, 'm'));
    expect(out).toMatch(new RegExp(`^Namespace:\\s+${ns}$`, 'm'));
    expect(out).toMatch(/^API Version:\s+agents\.x-k8s\.io\/v1beta1$/m);
    expect(out).toMatch(/^Kind:\s+Sandbox$/m);
    expect(out).toMatch(/^\s+Image:\s+busybox:1\.36$/m);
    expect(out).toMatch(/^\s+Reason:\s+PodReady$/m);
    expect(out).toMatch(/^Events:\s+<none>$/m);
  });
});

describe('kubectl patch, label, annotate, scale', () => {
  it('patches a Sandbox with --type=merge and --type=json', async () => {
    const name = uniqueName('patched');
    await kubectl.ok(['apply', '-f', '-'], sandboxManifest(name, ns));
    const merge = await kubectl.ok([
      ...['patch', 'sandbox', name, '-n', ns, '--type=merge'],
      ...['-p', '{"spec":{"podTemplate":{"metadata":{"labels":{"tier":"a"}}}}}'],
    ]);
    expect(merge.trim()).toBe(`sandbox.agents.x-k8s.io/${name} patched`);
    const json = await kubectl.ok([
      ...['patch', 'sandbox', name, '-n', ns, '--type=json'],
      ...[
        '-p',
        '[{"op":"replace","path":"/spec/podTemplate/spec/containers/0/image","value":"alpine:3.20"}]',
      ],
    ]);
    expect(json.trim()).toBe(`sandbox.agents.x-k8s.io/${name} patched`);
    const same = await kubectl.ok([
      ...['patch', 'sandbox', name, '-n', ns, '--type=merge'],
      ...['-p', '{"spec":{"podTemplate":{"metadata":{"labels":{"tier":"a"}}}}}'],
    ]);
    expect(same.trim()).toBe(`sandbox.agents.x-k8s.io/${name} patched (no change)`);
    expect(await getSandbox(name)).toMatchObject({
      metadata: { generation: 3 },
      spec: {
        podTemplate: {
          metadata: { labels: { tier: 'a' } },
          spec: { containers: [{ name: 'agent', image: 'alpine:3.20' }] },
        },
      },
    });
  });

  it('a strategic patch of a Sandbox fails with 415 as on kube-apiserver', async () => {
    const name = uniqueName('smp');
    await kubectl.ok(['apply', '-f', '-'], sandboxManifest(name, ns));
    for (const typeFlag of [[], ['--type=strategic']]) {
      const r = await kubectl.run([
        ...['patch', 'sandbox', name, '-n', ns, ...typeFlag],
        ...['-p', '{"metadata":{"labels":{"a":"b"}}}'],
      ]);
      expect(r.code).toBe(1);
      expect(r.stderr.trim()).toBe(
        'error: application/strategic-merge-patch+json is not supported by agents.x-k8s.io/v1beta1, Kind=Sandbox: ' +
          'the body of the request was in an unknown format - accepted media types include: ' +
          'application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
      );
    }
  });

  it('patches a ConfigMap with a strategic merge patch (finalizers merge as a set)', async () => {
    const name = uniqueName('smp-cm');
    await kubectl.ok(['create', 'configmap', name, '-n', ns, '--from-literal=a=1']);
    const patch = { metadata: { finalizers: ['example.com/one'] }, data: { b: '2' } };
    const first = await kubectl.ok([
      'patch',
      'configmap',
      name,
      '-n',
      ns,
      '-p',
      JSON.stringify(patch),
    ]);
    expect(first.trim()).toBe(`configmap/${name} patched`);
    await kubectl.ok([
      ...['patch', 'configmap', name, '-n', ns, '--type=strategic'],
      ...['-p', '{"metadata":{"finalizers":["example.com/two"]}}'],
    ]);
    const cm = await api.get(`/api/v1/namespaces/${ns}/configmaps/${name}`);
    expect(cm.body.data).toEqual({ a: '1', b: '2' });
    // apimachinery's strategicpatch (normalizeElementOrder/mergeSortedSlice) puts items only in
    // the patch before items only on the server, so kube-apiserver also answers [two, one].
    expect(cm.body.metadata?.finalizers).toEqual(['example.com/two', 'example.com/one']);
    await kubectl.ok([
      ...['patch', 'configmap', name, '-n', ns, '--type=json'],
      ...['-p', '[{"op":"remove","path":"/metadata/finalizers"}]'],
    ]);
  });

  it('label and annotate (add, overwrite, remove)', async () => {
    const name = uniqueName('meta');
    await kubectl.ok(['apply', '-f', '-'], sandboxManifest(name, ns));
    const ref = ['sandbox', name, '-n', ns];
    expect((await kubectl.ok(['label', ...ref, 'team=a'])).trim()).toBe(
      `sandbox.agents.x-k8s.io/${name} labeled`,
    );
    const clash = await kubectl.run(['label', ...ref, 'team=b']);
    expect(clash.code).toBe(1);
    expect(clash.stderr).toContain("'team' already has a value (a), and --overwrite is false");
    await kubectl.ok(['label', ...ref, 'team=b', '--overwrite']);
    expect((await kubectl.ok(['annotate', ...ref, 'note=hello world'])).trim()).toBe(
      `sandbox.agents.x-k8s.io/${name} annotated`,
    );
    let obj = await getSandbox(name);
    expect(obj).toMatchObject({
      metadata: { labels: { team: 'b' }, annotations: { note: 'hello world' }, generation: 1 },
    });
    expect((await kubectl.ok(['label', ...ref, 'team-'])).trim()).toBe(
      `sandbox.agents.x-k8s.io/${name} unlabeled`,
    );
    await kubectl.ok(['annotate', ...ref, 'note-']);
    obj = await getSandbox(name);
    expect(obj).not.toHaveProperty('metadata.labels.team');
    expect(obj).not.toHaveProperty('metadata.annotations.note');
    const selected = await kubectl.ok(['get', 'sandboxes', '-n', ns, '-l', 'team', '-o', 'name']);
    expect(selected).toBe('');
  });

  it('scale sandboxwarmpool --replicas=3 goes through the scale subresource', async () => {
    const name = uniqueName('pool');
    await kubectl.ok(
      ['apply', '-f', '-'],
      `apiVersion: extensions.agents.x-k8s.io/v1beta1\nkind: SandboxWarmPool\nmetadata: {name: ${name}, namespace: ${ns}}\nspec:\n  sandboxTemplateRef: {name: tpl}\n`,
    );
    const pools = `/apis/extensions.agents.x-k8s.io/v1beta1/namespaces/${ns}/sandboxwarmpools`;
    expect((await api.get(`${pools}/${name}`)).body).toMatchObject({ spec: { replicas: 1 } });
    const out = await kubectl.ok(['scale', 'sandboxwarmpool', name, '-n', ns, '--replicas=3']);
    expect(out.trim()).toBe(`sandboxwarmpool.extensions.agents.x-k8s.io/${name} scaled`);
    const scale = await api.get(`${pools}/${name}/scale`);
    expect(scale.body).toMatchObject({ kind: 'Scale', spec: { replicas: 3 } });
    expect((await api.get(`${pools}/${name}`)).body).toMatchObject({
      spec: { replicas: 3 },
      metadata: { generation: 2 },
    });
    const stale = await kubectl.run([
      ...['scale', 'sandboxwarmpool', name, '-n', ns],
      ...['--current-replicas=1', '--replicas=5'],
    ]);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('Expected replicas to be 1, was 3');
    const table = await kubectl.ok(['get', 'sandboxwarmpool', name, '-n', ns]);
    // READY (.status.readyReplicas) is a null cell, which kubectl prints blank.
    expect(table.split('\n')[0]?.trim().split(/\s+/)).toEqual(['NAME', 'READY', 'DESIRED', 'AGE']);
    expect(table.split('\n')[1]).toMatch(new RegExp(`^${name}\\s+3\\s+\\d+s\\s*$`));
  });
});
