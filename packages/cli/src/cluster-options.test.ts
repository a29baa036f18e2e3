import { Command } from 'commander';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { addClusterOptions, loadClusterConfig, type ClusterOptions } from './cluster-options.ts';

const KUBECONFIG = `apiVersion: v1
kind: Config
current-context: a
contexts:
  - name: a
    context: { cluster: c, user: u, namespace: team-a }
  - name: b
    context: { cluster: c, user: u }
clusters:
  - name: c
    cluster: { server: https://127.0.0.1:6443, insecure-skip-tls-verify: true }
users:
  - name: u
    user: { token: t }
`;

function parseOptions(argv: string[]): ClusterOptions {
  let seen: ClusterOptions | undefined;
  const program = new Command().exitOverride().configureOutput({ writeErr: () => undefined });
  addClusterOptions(program.command('get')).action((opts: ClusterOptions) => {
    seen = opts;
  });
  program.parse(['get', ...argv], { from: 'user' });
  if (!seen) throw new Error('action did not run');
  return seen;
}

describe('cluster options', () => {
  it('declares --kubeconfig, --context, -n and -o with kubectl defaults', () => {
    expect(parseOptions([])).toEqual({ output: 'table' });
    expect(parseOptions(['-n', 'x', '-o', 'yaml', '--context', 'b'])).toEqual({
      namespace: 'x',
      output: 'yaml',
      context: 'b',
    });
    expect(() => parseOptions(['-o', 'wide'])).toThrow(
      /Allowed choices are table, json, yaml, name/,
    );
  });

  it("loads the selected context; -n wins over the context's namespace", async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'cluster-options-')), 'config');
    writeFileSync(path, KUBECONFIG);
    const a = await loadClusterConfig({ kubeconfig: path, output: 'table' }, {});
    expect([a.config.server, a.namespace]).toEqual(['https://127.0.0.1:6443', 'team-a']);
    const b = await loadClusterConfig({ kubeconfig: path, context: 'b', output: 'table' }, {});
    expect(b.namespace).toBe('default');
    const env = await loadClusterConfig({ namespace: 'n', output: 'json' }, { KUBECONFIG: path });
    expect(env.namespace).toBe('n');
  });
});
