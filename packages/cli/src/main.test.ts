import { renderCrdsYaml, renderRbacYaml } from '@agent-sandbox/api';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './testing.ts';

const SANDBOX = `apiVersion: agents.x-k8s.io/v1beta1
kind: Sandbox
metadata:
  name: ok
spec:
  podTemplate:
    spec:
      containers:
        - name: main
          image: busybox
`;

function tempDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'agent-sandbox-cli-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

describe('agent-sandbox CLI', () => {
  it('prints help for the program and each command', async () => {
    const top = await runCli(['--help']);
    expect(top.code).toBe(0);
    expect(top.stdout).toMatch(/Usage: agent-sandbox/);
    expect(top.stdout).toMatch(/validate/);
    const sub = await runCli(['validate', '--help']);
    expect(sub.stdout).toMatch(/--filename/);
    const manifests = await runCli(['manifests', '--help']);
    expect(manifests.stdout).toMatch(/crds/);
  });

  it('prints its version', async () => {
    const result = await runCli(['--version']);
    expect(result).toMatchObject({ code: 0, stdout: '0.1.0\n' });
  });

  it('fails fast on unknown commands and flags', async () => {
    expect((await runCli(['frobnicate'])).code).not.toBe(0);
    const bad = await runCli(['validate', '-f', 'x.yaml', '--nope']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/unknown option '--nope'/);
  });

  it('exits 2 on a command line that does not parse, as the README says', async () => {
    const unknownCommand = await runCli(['frobnicate']);
    expect(unknownCommand.code).toBe(2);
    expect(unknownCommand.stderr).toMatch(/unknown command 'frobnicate'/);
    expect((await runCli(['validate', '-f', 'x.yaml', '--nope'])).code).toBe(2);
    const missing = await runCli(['validate']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/required option '-f, --filename <path>' not specified/);
    expect((await runCli(['get'])).code).toBe(2); // missing argument <id...>
    expect((await runCli([])).code).toBe(2); // no command: help on stderr
    expect((await runCli(['validate', '--help'])).code).toBe(0);
  });

  it('prints the four CRDs', async () => {
    const result = await runCli(['manifests', 'crds']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(renderCrdsYaml());
    expect(result.stdout.match(/^kind: CustomResourceDefinition$/gm)).toHaveLength(4);
  });

  it('prints the controller manager RBAC', async () => {
    const result = await runCli(['manifests', 'rbac', '--extensions']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(renderRbacYaml({ extensions: true }));
    expect(result.stdout.match(/^kind: ClusterRole$/gm)).toHaveLength(2);
    expect(result.stdout.match(/^kind: ClusterRoleBinding$/gm)).toHaveLength(2);
  });

  it('validates a valid file with exit 0', async () => {
    const dir = tempDir({ 'ok.yaml': SANDBOX });
    const result = await runCli(['validate', '-f', join(dir, 'ok.yaml')]);
    expect(result).toMatchObject({ code: 0, stdout: '' });
    expect(result.stderr).toMatch(/1 document\(s\): 1 valid, 0 invalid/);
  });

  it('reports one line per problem with kind/name and field path, exit 1', async () => {
    const bad = SANDBOX.replace('name: ok', 'name: bad').replace(
      'spec:\n  podTemplate',
      'spec:\n  operatingMode: Paused\n  podTemplate',
    );
    const dir = tempDir({
      'a/ok.yaml': SANDBOX,
      'a/b/bad.yml': `${bad}---\nkind: Gadget\napiVersion: v1\nmetadata: {name: g}\n`,
    });
    const result = await runCli(['validate', '-f', dir]);
    expect(result.code).toBe(1);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toEqual([
      `${join(dir, 'a/b/bad.yml')}#1 Sandbox/bad: spec.operatingMode: Unsupported value: "Paused": supported values: "Running", "Suspended"`,
      expect.stringMatching(/bad\.yml#2 Gadget\/g: kind: Invalid value: "Gadget": unknown kind/),
    ]);
    expect(result.stderr).toMatch(/3 document\(s\): 1 valid, 2 invalid/);
  });

  it('reads - from stdin, JSON included', async () => {
    const json = JSON.stringify({
      apiVersion: 'extensions.agents.x-k8s.io/v1beta1',
      kind: 'SandboxWarmPool',
      metadata: { name: 'p' },
      spec: { replicas: -2, sandboxTemplateRef: { name: 't' } },
    });
    const result = await runCli(['validate', '-f', '-'], json);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /^<stdin>#1 SandboxWarmPool\/p: spec\.replicas: Invalid value: -2: spec\.replicas in body should be greater than or equal to 0$/m,
    );
  });

  it('reports YAML syntax errors with their line', async () => {
    const result = await runCli(['validate', '-f', '-'], 'kind: Sandbox\n  bad: [\n');
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/<stdin>#1 <unparsed>: invalid YAML: line \d+/);
  });

  it('reports a missing file clearly', async () => {
    const result = await runCli(['validate', '-f', '/nonexistent/x.yaml']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/cannot read \/nonexistent\/x.yaml: no such file or directory/);
  });

  it('fills ${NAME} placeholders from --set and reports the ones left', async () => {
    const text = SANDBOX.replace('image: busybox', 'image: ${IMAGE}');
    const left = await runCli(['validate', '-f', '-'], text);
    expect(left.code).toBe(1);
    expect(left.stdout).toMatch(
      /spec\.podTemplate\.spec\.containers\[0\]\.image: placeholder \$\{IMAGE\} is not substituted: pass --set IMAGE=<value>/,
    );
    const filled = await runCli(['validate', '-f', '-', '--set', 'IMAGE=busybox:1.36'], text);
    expect(filled.code).toBe(0);
    const angle = SANDBOX.replace('image: busybox', 'image: <IMAGE>');
    expect((await runCli(['validate', '-f', '-'], angle)).stdout).toMatch(
      /placeholder <IMAGE> is not substituted/,
    );
    expect((await runCli(['validate', '-f', '-', '--set', 'IMAGE=busybox'], angle)).code).toBe(0);
    const badSet = await runCli(['validate', '-f', '-', '--set', 'IMAGE'], text);
    expect(badSet.stderr).toMatch(/expected NAME=VALUE/);
  });

  it('validates patch fragments with --partial', async () => {
    const patch =
      'apiVersion: agents.x-k8s.io/v1beta1\nkind: Sandbox\nmetadata:\n  name: p\nspec:\n  shutdownPolicy: Delete\n';
    expect((await runCli(['validate', '-f', '-'], patch)).code).toBe(1);
    expect((await runCli(['validate', '-f', '-', '--partial'], patch)).code).toBe(0);
    const wrong = patch.replace('Delete', 'Later');
    expect((await runCli(['validate', '-f', '-', '--partial'], wrong)).code).toBe(1);
  });
});
