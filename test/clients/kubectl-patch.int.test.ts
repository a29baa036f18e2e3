// Must show (issue 4), continued: kubectl patch (merge, json, strategic), label, annotate and
// scale against the embedded API server. The strategic-patch-of-a-CR error was checked with this
// kubectl against a real kube-apiserver 1.32 (test/cluster).
import { describe, expect, it } from 'vitest';
import { condition, sandboxManifest, uniqueName, useKubectlServer } from './support.ts';

const env = useKubectlServer('kubectl-patch');
const sandboxes = `/apis/agents.x-k8s.io/v1beta1/namespaces/${env.ns}/sandboxes`;

async function getSandbox(name: string): Promise<Record<string, unknown>> {
  const r = await env.api.get(`${sandboxes}/${name}`);
  expect(r.status).toBe(200);
  return r.body;
}

describe('kubectl patch, label, annotate, scale', () => {
  it('patches a Sandbox with --type=merge and --type=json', async () => {
    const name = uniqueName('patched');
    await env.kubectl.ok(['apply', '-f', '-'], sandboxManifest(name, env.ns));
    const merge = await env.kubectl.ok([
      ...['patch', 'sandbox', name, '-n', env.ns, '--type=merge'],
      ...['-p', '{"spec":{"podTemplate":{"metadata":{"labels":{"tier":"a"}}}}}'],
    ]);
    expect(merge.trim()).toBe(`sandbox.agents.x-k8s.io/${name} patched`);
    const json = await env.kubectl.ok([
      ...['patch', 'sandbox', name, '-n', env.ns, '--type=json'],
      ...[
        '-p',
        '[{"op":"replace","path":"/spec/podTemplate/spec/containers/0/image","value":"alpine:3.20"}]',
      ],
    ]);
    expect(json.trim()).toBe(`sandbox.agents.x-k8s.io/${name} patched`);
    const same = await env.kubectl.ok([
      ...['patch', 'sandbox', name, '-n', env.ns, '--type=merge'],
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

  it('patch --subresource=status sets a condition; main-resource patches cannot', async () => {
    const name = uniqueName('status');
    await env.kubectl.ok(['apply', '-f', '-'], sandboxManifest(name, env.ns));
    const status = JSON.stringify({ status: { conditions: [condition('Ready', 'True', 'Up')] } });
    const main = await env.kubectl.ok([
      ...['patch', 'sandbox', name, '-n', env.ns, '--type=merge', '-p', status],
    ]);
    expect(main.trim()).toBe(`sandbox.agents.x-k8s.io/${name} patched (no change)`);
    const sub = await env.kubectl.ok([
      ...['patch', 'sandbox', name, '-n', env.ns, '--subresource=status', '--type=merge'],
      ...['-p', status],
    ]);
    expect(sub.trim()).toBe(`sandbox.agents.x-k8s.io/${name} patched`);
    const ready = await env.kubectl.ok([
      ...['get', 'sandbox', name, '-n', env.ns, '--subresource=status'],
      ...['-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].reason}'],
    ]);
    expect(ready).toBe('Up');
    expect(await getSandbox(name)).toMatchObject({ metadata: { generation: 1 } });
  });

  it('a strategic patch of a Sandbox fails with 415 as on kube-apiserver', async () => {
    const name = uniqueName('smp');
    await env.kubectl.ok(['apply', '-f', '-'], sandboxManifest(name, env.ns));
    for (const typeFlag of [[], ['--type=strategic']]) {
      const r = await env.kubectl.run([
        ...['patch', 'sandbox', name, '-n', env.ns, ...typeFlag],
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
    await env.kubectl.ok(['create', 'configmap', name, '-n', env.ns, '--from-literal=a=1']);
    const patch = { metadata: { finalizers: ['example.com/one'] }, data: { b: '2' } };
    const first = await env.kubectl.ok([
      'patch',
      'configmap',
      name,
      '-n',
      env.ns,
      '-p',
      JSON.stringify(patch),
    ]);
    expect(first.trim()).toBe(`configmap/${name} patched`);
    await env.kubectl.ok([
      ...['patch', 'configmap', name, '-n', env.ns, '--type=strategic'],
      ...['-p', '{"metadata":{"finalizers":["example.com/two"]}}'],
    ]);
    const cm = await env.api.get(`/api/v1/namespaces/${env.ns}/configmaps/${name}`);
    expect(cm.body.data).toEqual({ a: '1', b: '2' });
    // apimachinery's strategicpatch (normalizeElementOrder/mergeSortedSlice) puts items only in
    // the patch before items only on the server, so kube-apiserver also answers [two, one].
    expect(cm.body.metadata?.finalizers).toEqual(['example.com/two', 'example.com/one']);
    await env.kubectl.ok([
      ...['patch', 'configmap', name, '-n', env.ns, '--type=json'],
      ...['-p', '[{"op":"remove","path":"/metadata/finalizers"}]'],
    ]);
  });

  it('label and annotate (add, overwrite, remove)', async () => {
    const name = uniqueName('meta');
    await env.kubectl.ok(['apply', '-f', '-'], sandboxManifest(name, env.ns));
    const ref = ['sandbox', name, '-n', env.ns];
    expect((await env.kubectl.ok(['label', ...ref, 'team=a'])).trim()).toBe(
      `sandbox.agents.x-k8s.io/${name} labeled`,
    );
    const clash = await env.kubectl.run(['label', ...ref, 'team=b']);
    expect(clash.code).toBe(1);
    expect(clash.stderr).toContain("'team' already has a value (a), and --overwrite is false");
    await env.kubectl.ok(['label', ...ref, 'team=b', '--overwrite']);
    expect((await env.kubectl.ok(['annotate', ...ref, 'note=hello world'])).trim()).toBe(
      `sandbox.agents.x-k8s.io/${name} annotated`,
    );
    let obj = await getSandbox(name);
    expect(obj).toMatchObject({
      metadata: { labels: { team: 'b' }, annotations: { note: 'hello world' }, generation: 1 },
    });
    expect((await env.kubectl.ok(['label', ...ref, 'team-'])).trim()).toBe(
      `sandbox.agents.x-k8s.io/${name} unlabeled`,
    );
    await env.kubectl.ok(['annotate', ...ref, 'note-']);
    obj = await getSandbox(name);
    expect(obj).not.toHaveProperty('metadata.labels.team');
    expect(obj).not.toHaveProperty('metadata.annotations.note');
    const selected = await env.kubectl.ok([
      'get',
      'sandboxes',
      '-n',
      env.ns,
      '-l',
      'team',
      '-o',
      'name',
    ]);
    expect(selected).toBe('');
  });

  it('scale sandboxwarmpool --replicas=3 goes through the scale subresource', async () => {
    const name = uniqueName('pool');
    await env.kubectl.ok(
      ['apply', '-f', '-'],
      `apiVersion: extensions.agents.x-k8s.io/v1beta1\nkind: SandboxWarmPool\nmetadata: {name: ${name}, namespace: ${env.ns}}\nspec:\n  sandboxTemplateRef: {name: tpl}\n`,
    );
    const pools = `/apis/extensions.agents.x-k8s.io/v1beta1/namespaces/${env.ns}/sandboxwarmpools`;
    expect((await env.api.get(`${pools}/${name}`)).body).toMatchObject({ spec: { replicas: 1 } });
    const out = await env.kubectl.ok([
      'scale',
      'sandboxwarmpool',
      name,
      '-n',
      env.ns,
      '--replicas=3',
    ]);
    expect(out.trim()).toBe(`sandboxwarmpool.extensions.agents.x-k8s.io/${name} scaled`);
    const scale = await env.api.get(`${pools}/${name}/scale`);
    expect(scale.body).toMatchObject({ kind: 'Scale', spec: { replicas: 3 } });
    expect((await env.api.get(`${pools}/${name}`)).body).toMatchObject({
      spec: { replicas: 3 },
      metadata: { generation: 2 },
    });
    const stale = await env.kubectl.run([
      ...['scale', 'sandboxwarmpool', name, '-n', env.ns],
      ...['--current-replicas=1', '--replicas=5'],
    ]);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('Expected replicas to be 1, was 3');
    const table = await env.kubectl.ok(['get', 'sandboxwarmpool', name, '-n', env.ns]);
    // READY (.status.readyReplicas) is a null cell, which kubectl prints blank.
    expect(table.split('\n')[0]?.trim().split(/\s+/)).toEqual(['NAME', 'READY', 'DESIRED', 'AGE']);
    expect(table.split('\n')[1]).toMatch(new RegExp(`^${name}\\s+3\\s+\\d+s\\s*$`));
  });
});
