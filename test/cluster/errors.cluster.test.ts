// The issue asks for clear errors that say what to do: a taken port and a missing toolchain.
// Each case uses its own state dir and ports, so the shared cluster is left alone.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, expect, it } from 'vitest';

const run = promisify(execFile);
const CLI = join(import.meta.dirname, 'cli.ts');
const scratch: string[] = [];
const servers: Server[] = [];

afterEach(async () => {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
  for (const s of servers.splice(0)) await new Promise((resolve) => s.close(resolve));
});

async function which(tool: string): Promise<string> {
  return (await run('bash', ['-c', `command -v ${tool}`])).stdout.trim();
}

function up(env: NodeJS.ProcessEnv) {
  const state = mkdtempSync(join(tmpdir(), 'cluster-errors-'));
  scratch.push(state);
  return run(process.execPath, ['--import', 'tsx', CLI, 'up'], {
    env: { ...process.env, AGENT_SANDBOX_CLUSTER_STATE: join(state, 'state'), ...env },
    timeout: 600_000,
  }).then(
    () => ({ code: 0, stderr: '' }),
    (err: { code: number; stderr: string }) => ({ code: err.code, stderr: err.stderr }),
  );
}

it('names a taken port, its owner command and the way out', async () => {
  const server = createServer();
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(32502, '127.0.0.1', resolve));

  const result = await up({ AGENT_SANDBOX_CLUSTER_PORT_BASE: '32500' });
  expect(result.code).toBe(1);
  expect(result.stderr).toContain('port 32502 (for apiserver) is already in use');
  expect(result.stderr).toContain('AGENT_SANDBOX_CLUSTER_PORT_BASE');
});

it('says to install Go when the toolchain is missing', async () => {
  const cache = mkdtempSync(join(tmpdir(), 'cluster-errors-cache-'));
  scratch.push(cache);
  // A PATH holding only what build.sh runs before it looks for go, wherever go is installed.
  const bin = join(cache, 'bin');
  mkdirSync(bin);
  for (const tool of ['bash', 'dirname']) symlinkSync(await which(tool), join(bin, tool));
  const result = await up({ PATH: bin, AGENT_SANDBOX_CLUSTER_CACHE: cache });
  expect(result.code).toBe(1);
  expect(result.stderr).toContain('install Go >= 1.26');
});

it('refuses ports in the kernel ephemeral range, which outgoing connections may take', async () => {
  const result = await up({ AGENT_SANDBOX_CLUSTER_PORT_BASE: '40000' });
  expect(result.code).toBe(1);
  expect(result.stderr).toMatch(/overlap the kernel's ephemeral range .*PORT_BASE to at most/);
});
