// The user's journeys against a real `agent-sandbox up --demo` (what `npm start` runs) on a temp
// data dir: the demo image, a template with a PVC at /workspace and a warm pool for it; then,
// through the TypeScript SDK and through the CLI each: a warm claim → Python → write and read a
// file → HTTP to a server started in the sandbox, at the URL getHost (`url`) gives → suspend and
// resume keep the disk → delete. Nothing of the node is left after `up` stops.
import { Sandbox, NotFoundError, type ConnectionOptions } from '@agent-sandbox/sdk';
import { startUp, stopUp, upLeaks, upNetwork, type UpProcess } from '@agent-sandbox/local/testing';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import {
  E2E_POOL,
  agentSandbox,
  agentSandboxBackground,
  fetchWhenUp,
  poolManifest,
  runProcess,
  untilPoolReady,
  CLI_JOURNEY_TIMEOUT_MS,
} from './journeys.ts';

// The image `up --demo` builds (packages/cli/src/start/demo-image.ts) and loads.
const DEMO_IMAGE = 'localhost/agent-sandbox/demo:bookworm-python3';
const NETWORK = upNetwork('asbe', 215);

let scratch: string;
let dataDir: string;
let up: UpProcess | undefined;
let kubeconfig: string;

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'asb-e2e-'));
  dataDir = join(scratch, 'data');
  // The first run on a machine builds the demo image (minutes); later runs take it from the cache.
  up = await startUp({
    dataDir,
    network: NETWORK,
    args: ['--demo'],
    until: /^ready: warm pool/m,
    timeoutMs: 600_000,
  });
  kubeconfig = up.endpoints().kubeconfig;
  const applied = await runProcess(
    'kubectl',
    ['apply', '-f', '-'],
    { KUBECONFIG: kubeconfig },
    poolManifest({ image: DEMO_IMAGE, replicas: 2, namespace: 'default', disk: true }),
  );
  expect(applied.stderr).toBe('');
  await untilPoolReady(kubeconfig, 'default', 2);
});

afterAll(async () => {
  if (up) await stopUp(up);
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

beforeEach(() => {
  // A failure through a sandbox's daemon (a stalled Start) is explained by what the daemons did.
  onTestFailed(() =>
    console.log(
      `agent-sandbox up printed:\n${up?.output().slice(-6000)}\n` +
        `in-sandbox daemons, last lines each (from ${dataDir}/up.log):\n${up?.daemonLog()}`,
    ),
  );
});

describe('e2e against agent-sandbox up --demo', () => {
  it('SDK: warm claim → python → files → getHost → suspend/resume keeps the disk → kill', async () => {
    const conn: ConnectionOptions = { kubeconfig, namespace: 'default', hostEnv: {} };
    const sandbox = await Sandbox.create({ ...conn, warmPool: E2E_POOL, labels: { e2e: 'sdk' } });
    try {
      // Warm: the claim is bound to a pool member, not to a Sandbox made for it.
      expect(sandbox.sandboxName).not.toBe(sandbox.id);
      expect((await sandbox.info()).state).toBe('Running');

      const py = await sandbox.commands.run(
        `python3 -c 'import sys; print(sys.version_info.major, 6 * 7)'`,
      );
      expect(py).toEqual({ exitCode: 0, stdout: '3 42\n', stderr: '' });

      await sandbox.files.write('notes/hello.txt', 'written by the SDK\n');
      expect(await sandbox.files.read('notes/hello.txt')).toBe('written by the SDK\n');
      const seen = await sandbox.commands.run('cat /workspace/notes/hello.txt');
      expect(seen.stdout).toBe('written by the SDK\n');

      const server = await sandbox.commands.run('python3 -m http.server 8000 --bind 0.0.0.0', {
        background: true,
      });
      const url = await sandbox.getHost(8000);
      expect(url).toMatch(
        new RegExp(`^http://${NETWORK.subnet.replaceAll('.', '\\.')}\\.\\d+:8000$`),
      );
      expect(await fetchWhenUp(`${url}/notes/hello.txt`)).toBe('written by the SDK\n');
      expect(await server.kill()).toBe(true);

      await sandbox.suspend();
      expect((await sandbox.info()).state).toBe('Suspended');
      await sandbox.resume();
      expect((await sandbox.info()).state).toBe('Running');
      expect(await sandbox.files.read('notes/hello.txt')).toBe('written by the SDK\n');
    } finally {
      expect(await sandbox.kill()).toBe(true);
      await sandbox.close();
    }
    await expect(Sandbox.connect(sandbox.id, conn)).rejects.toBeInstanceOf(NotFoundError);
  });

  it(
    'CLI: create --warm-pool → exec python → cp both ways → url → suspend/resume keeps the disk → rm',
    async () => {
      await untilPoolReady(kubeconfig, 'default', 2);
      const cli = (...args: string[]) => agentSandbox(kubeconfig, args);
      const created = await cli(
        'create',
        '--warm-pool',
        E2E_POOL,
        '--name',
        'cli-box',
        '-o',
        'json',
      );
      expect(created.stderr).toBe('');
      expect(created.code).toBe(0);
      const info = JSON.parse(created.stdout) as { id: string; sandboxName: string; state: string };
      expect(info).toMatchObject({ id: 'cli-box', state: 'Running' });
      expect(info.sandboxName).not.toBe('cli-box');

      expect(await cli('exec', 'cli-box', '--', 'python3', '-c', 'print(6 * 7)')).toEqual({
        code: 0,
        stdout: '42\n',
        stderr: '',
      });
      expect(await cli('exec', 'cli-box', '--', 'sh', '-c', 'exit 7')).toMatchObject({ code: 7 });

      const local = join(scratch, 'from-host.txt');
      writeFileSync(local, 'copied in by the CLI\n');
      expect(await cli('cp', local, 'cli-box:in/from-host.txt')).toMatchObject({ code: 0 });
      expect((await cli('exec', 'cli-box', '--', 'cat', 'in/from-host.txt')).stdout).toBe(
        'copied in by the CLI\n',
      );
      const back = join(scratch, 'back.txt');
      expect(await cli('cp', 'cli-box:in/from-host.txt', back)).toMatchObject({ code: 0 });
      expect(readFileSync(back, 'utf8')).toBe('copied in by the CLI\n');

      // A server in the sandbox, run from "another terminal" for as long as the test needs it.
      const server = agentSandboxBackground(kubeconfig, [
        'exec',
        'cli-box',
        '--',
        'python3',
        '-m',
        'http.server',
        '8001',
        '--bind',
        '0.0.0.0',
      ]);
      try {
        const url = await cli('url', 'cli-box', '8001');
        expect(url.code).toBe(0);
        expect(url.stdout).toMatch(/^http:\/\/[\d.]+:8001\n$/);
        expect(await fetchWhenUp(`${url.stdout.trim()}/in/from-host.txt`)).toBe(
          'copied in by the CLI\n',
        );
      } finally {
        server.kill('SIGINT');
      }

      expect(await cli('suspend', 'cli-box')).toMatchObject({
        code: 0,
        stdout: 'sandbox cli-box suspended\n',
      });
      expect((await cli('get', 'cli-box', '-o', 'json')).stdout).toContain('"state": "Suspended"');
      expect(await cli('resume', 'cli-box')).toMatchObject({ code: 0 });
      expect((await cli('exec', 'cli-box', '--', 'cat', 'in/from-host.txt')).stdout).toBe(
        'copied in by the CLI\n',
      );
      const ls = await cli('ls');
      expect(ls.stdout).toMatch(/\ncli-box\s+Running\s+pool\/e2e\s/);

      expect(await cli('rm', 'cli-box')).toMatchObject({ code: 0 });
      const gone = await cli('get', 'cli-box');
      expect(gone.code).toBe(1);
      expect(gone.stderr).toMatch(/cli-box/);
      expect(gone.stderr).toMatch(/not found/i);
    },
    CLI_JOURNEY_TIMEOUT_MS,
  );

  it("README's TypeScript example runs as printed and prints 45", async () => {
    const readme = readFileSync(join(import.meta.dirname, '../../README.md'), 'utf8');
    const example = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toContain("Sandbox.create({ warmPool: 'python' })");
    // As a user runs it: tsx from the repository, KUBECONFIG as `npm start` printed it.
    const ran = await runProcess(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', example ?? ''],
      { KUBECONFIG: kubeconfig },
    );
    expect(ran).toEqual({ code: 0, stdout: '45\n', stderr: '' });
  });

  it('up stops on SIGINT and leaves nothing of the node behind', async () => {
    if (!up) throw new Error('up is not running');
    expect(await stopUp(up)).toBe(0);
    expect(upLeaks(dataDir, NETWORK)).toEqual([]);
  });
});
