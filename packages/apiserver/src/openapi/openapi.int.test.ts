// kubectl 1.32 against the embedded server's OpenAPI (semantics doc §1.5–1.6): explain from the
// v3 CRD schema, create with the default --validate=strict (kubectl's field-validation check on
// the v3 PATCH operation, then the server's strict decoding), client-side apply with strategic
// merge patch from the v3 document, server-side apply, and client-side validation of a
// `kind: List` through /openapi/v2 as protobuf.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readOurCrds } from '../testing/our-crds.ts';
import { startTestApiServer, type TestApiServer } from '../testing/test-server.ts';

interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

const SANDBOX = `apiVersion: agents.x-k8s.io/v1beta1
kind: Sandbox
metadata:
  name: sb1
spec:
  podTemplate:
    spec:
      containers:
      - name: main
        image: busybox
`;

describe('kubectl with the OpenAPI documents', () => {
  let s: TestApiServer;
  let dir: string;

  beforeAll(async () => {
    s = await startTestApiServer({ crds: readOurCrds() });
    dir = mkdtempSync(join(tmpdir(), 'openapi-kubectl-'));
  });
  afterAll(async () => {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** kubectl in a child process (the server runs in this event loop), with its own cache dir. */
  function kubectl(args: string[], input?: string): Promise<KubectlResult> {
    return new Promise((resolve) => {
      const child = execFile(
        'kubectl',
        ['--cache-dir', join(dir, 'cache'), ...args],
        { env: { ...process.env, KUBECONFIG: s.kubeconfigPath }, encoding: 'utf8' },
        (err, stdout, stderr) => {
          const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
          resolve({ code, stdout, stderr });
        },
      );
      if (input !== undefined) child.stdin?.end(input);
    });
  }

  function file(name: string, content: string): string {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  }

  it('explains a CRD field from the v3 document', async () => {
    const r = await kubectl(['explain', 'sandbox.spec']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('GROUP:      agents.x-k8s.io');
    expect(r.stdout).toContain('KIND:       Sandbox');
    expect(r.stdout).toMatch(/podTemplate\s+<Object> -required-/);
  });

  it('creates a Sandbox with strict validation sent to the server', async () => {
    const r = await kubectl(['create', '-f', file('sb.yaml', SANDBOX), '-v=6']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('sandbox.agents.x-k8s.io/sb1 created\n');
    // kubectl found fieldValidation on the v3 PATCH operation, so it delegates validation.
    expect(r.stderr).toMatch(
      /POST http:\/\/\S+\/sandboxes\?fieldManager=kubectl-create&fieldValidation=Strict 201/,
    );
  });

  it('fails a Sandbox with an unknown field with the strict decoding error', async () => {
    const bad = SANDBOX.replace('name: sb1', 'name: sb2').replace(
      'spec:\n  podTemplate',
      'spec:\n  bogusField: 1\n  podTemplate',
    );
    const r = await kubectl(['create', '-f', file('sb-bad.yaml', bad)]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('strict decoding error: unknown field "spec.bogusField"');
  });

  it('applies a ConfigMap client-side, patching with strategic merge patch', async () => {
    const cm = (value: string) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm1\ndata:\n  a: "${value}"\n`;
    const first = await kubectl(['apply', '-f', file('cm.yaml', cm('1'))]);
    expect(first.stdout).toBe('configmap/cm1 created\n');
    const second = await kubectl(['apply', '-f', file('cm.yaml', cm('2')), '-v=8']);
    expect(second.stdout).toBe('configmap/cm1 configured\n');
    expect(second.stderr).toContain('Content-Type: application/strategic-merge-patch+json');
    const got = await kubectl(['get', 'configmap', 'cm1', '-o', 'jsonpath={.data.a}']);
    expect(got.stdout).toBe('2');
  });

  it('applies a CRD object client-side with JSON merge patch, never strategic merge', async () => {
    const changed = SANDBOX.replace('name: sb1', 'name: sb3');
    expect((await kubectl(['apply', '-f', file('sb3.yaml', changed)])).stdout).toBe(
      'sandbox.agents.x-k8s.io/sb3 created\n',
    );
    const r = await kubectl([
      'apply',
      '-f',
      file('sb3.yaml', changed.replace('image: busybox', 'image: busybox:1')),
      '-v=8',
    ]);
    expect(r.stdout).toBe('sandbox.agents.x-k8s.io/sb3 configured\n');
    expect(r.stderr).toContain('Content-Type: application/merge-patch+json');
  });

  it('applies server-side', async () => {
    const cm = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-ssa\ndata:\n  a: "1"\n';
    const r = await kubectl(['apply', '--server-side', '-f', file('cm-ssa.yaml', cm)]);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('configmap/cm-ssa serverside-applied\n');
  });

  it('validates a kind: List client-side with /openapi/v2 (protobuf)', async () => {
    const list = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: cm-list
  data: {a: "1"}
  bogus: 2
`;
    const r = await kubectl(['create', '-f', file('list.yaml', list)]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'ValidationError(ConfigMap): unknown field "bogus" in io.k8s.api.core.v1.ConfigMap',
    );
    const ok = await kubectl([
      'create',
      '-f',
      file('list-ok.yaml', list.replace('  bogus: 2\n', '')),
    ]);
    expect(ok.stdout).toBe('configmap/cm-list created\n');
  });

  it('explains from /openapi/v2 with --output=plaintext-openapiv2', async () => {
    const r = await kubectl(['explain', 'sandbox.spec', '--output=plaintext-openapiv2']);
    expect(r.stdout).toContain('VERSION:  agents.x-k8s.io/v1beta1');
    expect(r.stdout).toContain('podTemplate');
  });
});
