// The sandbox verbs in-process against the embedded API server with the real controllers:
// create / ls / get / suspend / resume / rm, their output formats, and every bad input a user
// meets (bad flags exit 2; unknown sandboxes, bad kubeconfigs and unreachable servers exit 1).
import { openSdkWorld, type SdkWorld } from '@agent-sandbox/sdk/testing';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './testing.ts';

describe('sandbox verbs', () => {
  let world: SdkWorld;
  let at: string[];
  let dir: string;
  beforeAll(async () => {
    world = await openSdkWorld();
    await world.createTemplate('tpl');
    await world.createPool('pool', 'tpl', 1);
    at = ['--kubeconfig', world.kubeconfigPath, '-n', world.namespace];
    dir = mkdtempSync(join(tmpdir(), 'cli-sandboxes-'));
  });
  afterAll(async () => {
    await world?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('create → ls → get → suspend → resume → rm', async () => {
    const created = await runCli([
      'create',
      '--warm-pool',
      'pool',
      '--name',
      'one',
      '-l',
      'team=a',
      '--timeout',
      '30m',
      '-o',
      'json',
      ...at,
    ]);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const info = JSON.parse(created.stdout) as Record<string, unknown>;
    expect(info).toMatchObject({
      id: 'one',
      claimName: 'one',
      state: 'Running',
      warmPool: 'pool',
      labels: { team: 'a' },
    });
    expect(Date.parse(String(info['expiresAt']))).toBeGreaterThan(Date.now() + 25 * 60_000);

    const tpl = await runCli([
      'create',
      '--template',
      'tpl',
      '--name',
      'two',
      '--env',
      'A=1',
      '-o',
      'name',
      ...at,
    ]);
    expect(tpl).toEqual({ code: 0, stdout: 'sandbox/two\n', stderr: '' });

    const table = await runCli(['ls', ...at]);
    expect(table.code).toBe(0);
    const lines = table.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+STATE\s+SOURCE\s+SANDBOX\s+AGE\s+EXPIRES$/);
    expect(lines.slice(1).map((l) => l.split(/\s+/).slice(0, 3))).toEqual([
      ['one', 'Running', 'pool/pool'],
      ['two', 'Running', 'template/tpl'],
    ]);
    expect((await runCli(['ls', '-l', 'team=a', '-o', 'name', ...at])).stdout).toBe(
      'sandbox/one\n',
    );
    const none = await runCli(['ls', '-l', 'team=zzz', ...at]);
    expect(none).toEqual({ code: 0, stdout: '', stderr: 'No resources found\n' });

    const yaml = await runCli(['get', 'two', '-o', 'yaml', ...at]);
    expect(yaml.stdout).toContain('id: two\n');
    expect(yaml.stdout).toContain('state: Running\n');
    const both = JSON.parse(
      (await runCli(['get', 'one', 'two', '-o', 'json', ...at])).stdout,
    ) as unknown[];
    expect(both).toHaveLength(2);

    expect(await runCli(['suspend', 'two', ...at])).toEqual({
      code: 0,
      stdout: 'sandbox two suspended\n',
      stderr: '',
    });
    expect((await runCli(['get', 'two', '-o', 'json', ...at])).stdout).toContain(
      '"state": "Suspended"',
    );
    expect((await runCli(['resume', 'two', ...at])).stdout).toBe('sandbox two resumed\n');

    expect(await runCli(['rm', 'one', 'two', ...at])).toEqual({
      code: 0,
      stdout: 'sandbox one deleted\nsandbox two deleted\n',
      stderr: '',
    });
    const again = await runCli(['rm', 'one', ...at]);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(
      'error: sandbox one not found (agent-sandbox ls shows what exists)\n',
    );
    expect(await runCli(['rm', 'one', '--ignore-not-found', ...at])).toEqual({
      code: 0,
      stdout: '',
      stderr: '',
    });
  });

  it('an unknown sandbox is exit 1 with what to do', async () => {
    for (const verb of ['get', 'suspend', 'resume']) {
      const r = await runCli([verb, 'nope', ...at]);
      expect(r.code, verb).toBe(1);
      expect(r.stderr, verb).toMatch(
        /^error: sandbox nope not found in namespace sdk-[0-9a-f]+: no SandboxClaim or Sandbox has that name/,
      );
    }
  });

  it.each([
    [['create'], 'error: create needs exactly one of --warm-pool, --template or --image\n'],
    [
      ['create', '--warm-pool', 'a', '--image', 'b'],
      'error: create needs exactly one of --warm-pool, --template or --image\n',
    ],
    [
      ['create', '--warm-pool', 'a', '--timeout', 'soon'],
      'error: --timeout "soon" is not a duration; use e.g. 90s, 30m or 2h\n',
    ],
    [
      ['create', '--warm-pool', 'a', '--wait', '0s'],
      'error: --wait "0s" is not a duration; use e.g. 90s, 30m or 2h\n',
    ],
    [
      ['create', '--warm-pool', 'a', '--env', 'NOVALUE'],
      'error: --env "NOVALUE" must be NAME=VALUE\n',
    ],
    [['ls', '-l', 'x'], 'error: --selector "x" must be NAME=VALUE\n'],
  ])('bad flags exit 2: %j', async (args, stderr) => {
    expect(await runCli([...args, ...at])).toEqual({ code: 2, stdout: '', stderr });
  });

  // Commander's usage errors: their status is main.ts's (report-error.ts), not these verbs'.
  it.each([
    [['ls', '-o', 'wide'], "error: option '-o, --output <format>' argument 'wide' is invalid"],
    [['get'], "error: missing required argument 'id'"],
    [['ls', '--bogus'], "error: unknown option '--bogus'"],
  ])('usage errors fail with the message of commander: %j', async (args, message) => {
    const r = await runCli([...args, ...at]);
    expect(r.code).not.toBe(0);
    expect(r.stderr.startsWith(message)).toBe(true);
  });

  it('values the SDK refuses name the field (exit 1)', async () => {
    const r = await runCli(['create', '--warm-pool', 'Bad_Pool', ...at]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: warmPool "Bad_Pool" must be a DNS subdomain/);
    const label = await runCli(['create', '--warm-pool', 'pool', '-l', 'bad key=x', ...at]);
    expect(label.code).toBe(1);
    expect(label.stderr).toMatch(/labels key "bad key"/);
    const missing = await runCli(['create', '--warm-pool', 'absent', ...at]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/SandboxWarmPool "absent" not found/);
  });

  it('a missing kubeconfig and an unreachable server are exit 1 saying so', async () => {
    const noFile = await runCli(['ls', '--kubeconfig', join(dir, 'absent.yaml')]);
    expect(noFile.code).toBe(1);
    expect(noFile.stderr).toMatch(
      /^error: no Kubernetes connection: read kubeconfig .*absent\.yaml/,
    );
    const down = join(dir, 'down.yaml');
    writeFileSync(
      down,
      [
        'apiVersion: v1',
        'kind: Config',
        'current-context: down',
        'clusters: [{ name: down, cluster: { server: "http://127.0.0.1:9" } }]',
        'contexts: [{ name: down, context: { cluster: down } }]',
        'users: []',
      ].join('\n'),
    );
    const r = await runCli(['ls', '--kubeconfig', down]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^error: list sandboxclaims.* in default: .*ECONNREFUSED|fetch failed/,
    );
  });
});
