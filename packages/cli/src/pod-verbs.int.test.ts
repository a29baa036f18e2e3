// exec, cp, logs, port-forward and url in-process against the embedded API server with the real
// controllers (the SDK test world): every bad input a user meets, with its message and exit code
// (bad flags 2; unknown or suspended sandboxes, missing files and a stopped `up` 1). What they
// do against real Pods is test/e2e's (a real `agent-sandbox up`).
import { openSdkWorld, type SdkWorld } from '@agent-sandbox/sdk/testing';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './testing.ts';

async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

describe('exec, cp, logs, port-forward, url: bad inputs', () => {
  let world: SdkWorld;
  let at: string[];
  let dir: string;
  // Options go right after the verb: after exec's `--` everything is the command.
  const cli = (argv: string[]) => runCli([argv[0] ?? '', ...at, ...argv.slice(1)]);
  beforeAll(async () => {
    world = await openSdkWorld();
    await world.createTemplate('tpl');
    await world.createPool('pool', 'tpl', 1);
    at = ['--kubeconfig', world.kubeconfigPath, '-n', world.namespace];
    dir = mkdtempSync(join(tmpdir(), 'cli-pod-verbs-'));
    const made = await runCli(['create', '--warm-pool', 'pool', '--name', 'box', ...at]);
    expect(made.code).toBe(0);
  });
  afterAll(async () => {
    await world?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('bad flags and arguments exit 2 naming what to fix', async () => {
    const cases: [string[], string][] = [
      [['port-forward', 'box', 'abc'], 'port "abc" must be REMOTE, LOCAL:REMOTE or :REMOTE'],
      [['port-forward', 'box', '70000'], 'port "70000" must be REMOTE'],
      [['url', 'box', '0'], 'port "0" must be a port number in 1-65535'],
      [['url', 'box', 'http'], 'port "http" must be a port number'],
      [['logs', 'box', '--tail', '-1'], '--tail "-1" must be a whole number of lines'],
      [['cp', './a', './b'], 'cp needs one side in a sandbox (ID:PATH) and one here'],
      [['cp', 'box:/a', 'box:/b'], 'cp needs one side in a sandbox (ID:PATH) and one here'],
    ];
    for (const [argv, message] of cases) {
      const r = await cli(argv);
      expect({ argv, code: r.code, stdout: r.stdout }).toEqual({ argv, code: 2, stdout: '' });
      expect(r.stderr).toContain(message);
    }
  });

  it("commander's own usage errors say what is missing", async () => {
    const r = await runCli(['exec', 'box', ...at]);
    expect(r.code).toBeGreaterThan(0);
    expect(r.stderr).toContain("missing required argument 'command'");
    const unknown = await runCli(['exec', 'box', 'ls', '-l', ...at]);
    expect(unknown.code).toBeGreaterThan(0);
    expect(unknown.stderr).toContain("unknown option '-l'");
  });

  it('an unknown sandbox exits 1 with the SDK message, for every verb', async () => {
    for (const argv of [
      ['exec', 'nope', '--', 'true'],
      ['cp', 'nope:/x', join(dir, 'x')],
      ['logs', 'nope'],
      ['port-forward', 'nope', '8000'],
      ['url', 'nope', '8000'],
    ]) {
      const r = await cli(argv);
      expect({ argv, code: r.code }).toEqual({ argv, code: 1 });
      expect(r.stderr).toBe(
        `error: sandbox nope not found in namespace ${world.namespace}: no SandboxClaim or Sandbox has that name (Sandbox.list() shows what exists)\n`,
      );
    }
  });

  it('a missing local file or local directory exits 1 before anything is sent', async () => {
    const r = await runCli(['cp', join(dir, 'missing.txt'), 'box:/workspace/', ...at]);
    expect(r).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: cp: ${join(dir, 'missing.txt')}: no such file or directory\n`,
    });
  });

  it('a suspended sandbox has no Pod: exec, logs and cp say to resume it', async () => {
    expect((await runCli(['suspend', 'box', ...at])).code).toBe(0);
    try {
      for (const argv of [
        ['exec', 'box', '--', 'true'],
        ['logs', 'box'],
        ['cp', 'box:/x', join(dir, 'x')],
      ]) {
        const r = await cli(argv);
        expect({ argv, code: r.code, stderr: r.stderr }).toEqual({
          argv,
          code: 1,
          stderr: 'error: sandbox box is suspended: it has no Pod (agent-sandbox resume box)\n',
        });
      }
    } finally {
      expect((await runCli(['resume', 'box', ...at])).code).toBe(0);
    }
  });

  it('url prints the Pod IP URL directly and the router host name with a router', async () => {
    expect(await runCli(['url', 'box', '8000', ...at])).toEqual({
      code: 0,
      stdout: 'http://127.0.0.1:8000\n',
      stderr: '',
    });
    const routed = await runCli([
      'url',
      'box',
      '8000',
      '--router-url',
      'http://127.0.0.1:8081',
      '--sandbox-domain',
      'sbx.test',
      '-o',
      'json',
      ...at,
    ]);
    expect(routed.code).toBe(0);
    const { url } = JSON.parse(routed.stdout) as { url: string };
    expect(url).toMatch(
      new RegExp(`^http://8000-[a-z0-9-]+\\.${world.namespace}\\.sbx\\.test:8081$`),
    );
    const noDomain = await runCli([
      'url',
      'box',
      '8000',
      '--router-url',
      'http://127.0.0.1:8081',
      ...at,
    ]);
    expect(noDomain.code).toBe(1);
    expect(noDomain.stderr).toContain('pass sandboxDomain or set AGENT_SANDBOX_SANDBOX_DOMAIN');
  });

  it('a stopped up (nothing listening) exits 1 saying to check that it runs', async () => {
    const port = await closedPort();
    const stale = join(dir, 'stale-kubeconfig');
    writeFileSync(
      stale,
      readFileSync(world.kubeconfigPath, 'utf8').replace(
        /server: \S+/,
        `server: https://127.0.0.1:${port}`,
      ),
    );
    for (const argv of [
      ['exec', 'box', '--', 'true'],
      ['cp', 'box:/x', join(dir, 'x')],
      ['logs', 'box'],
      ['port-forward', 'box', '8000'],
      ['url', 'box', '8000'],
    ]) {
      const [verb, ...rest] = argv as [string, ...string[]];
      const r = await runCli([verb, '--kubeconfig', stale, '-n', world.namespace, ...rest]);
      expect({ argv, code: r.code }).toEqual({ argv, code: 1 });
      expect(r.stderr).toMatch(
        /ECONNREFUSED.*\(is agent-sandbox up running\? check --kubeconfig \/ KUBECONFIG\)\n$/,
      );
    }
  });
});
