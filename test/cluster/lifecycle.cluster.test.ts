// Must-show (issue 3): `down` leaves no process and no data behind, and `up` after `down` works.
// Drives the real CLI, as CI and developers do, on a private state dir and ports so the shared
// cluster that other suites (and other checkouts) use keeps running.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { optionsFromEnv, portsFor } from './src/options.ts';
import { isRunning } from './src/processes.ts';
import { readRecord, statePaths } from './src/state.ts';
import { WEBHOOK_COMPONENT, servesV1alpha1 } from './src/webhook.ts';

const run = promisify(execFile);
const CLI = join(import.meta.dirname, 'cli.ts');

const scratch = mkdtempSync(join(tmpdir(), 'cluster-lifecycle-'));
// 32420..32426: clear of the shared cluster's 32400..32406 and below the ephemeral range.
const env = {
  ...process.env,
  AGENT_SANDBOX_CLUSTER_STATE: join(scratch, 'state'),
  AGENT_SANDBOX_CLUSTER_PORT_BASE: '32420',
};

function cluster(...args: string[]) {
  return run(process.execPath, ['--import', 'tsx', CLI, ...args], { env, timeout: 600_000 });
}

/**
 * PIDs of every process run from the harness bin directory for this state dir: each component's
 * command line names a file in it (data dir, certificates, kubeconfig or config).
 */
function processesFrom(binDir: string, stateDir: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        return readlinkSync(`/proc/${pid}/exe`).startsWith(binDir) && cmdline.includes(stateDir);
      } catch {
        return false; // exited while we looked, or a kernel thread
      }
    })
    .map(Number);
}

function isPortFree(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

beforeAll(async () => {
  await cluster('up');
});

afterAll(async () => {
  await cluster('down');
  rmSync(scratch, { recursive: true, force: true });
});

it('down stops every process and removes all data; up after down works', async () => {
  const options = optionsFromEnv(env);
  const paths = statePaths(options.stateDir);
  const record = readRecord(paths);
  expect(record).toBeDefined();
  const binDir = record?.binDir ?? '';
  expect(processesFrom(binDir, paths.root)).toHaveLength(5);
  const firstWebhook = record?.processes.find((p) => p.name === WEBHOOK_COMPONENT);
  expect(firstWebhook && isRunning(firstWebhook)).toBe(true);

  await cluster('down');
  expect(processesFrom(binDir, paths.root)).toEqual([]);
  expect(firstWebhook && isRunning(firstWebhook)).toBe(false);
  expect(existsSync(paths.root)).toBe(false);
  for (const port of Object.values(portsFor(options.portBase))) {
    expect(await isPortFree(port)).toBe(true);
  }
  // `down` again is a no-op, and `kubeconfig` now says how to start one.
  await cluster('down');
  await expect(cluster('kubeconfig')).rejects.toThrow(/npm run cluster -- up/);

  const { stdout } = await cluster('up');
  expect(stdout.trim().split('\n').at(-1)).toBe(paths.kubeconfig);
  // Re-read: a pin or build.sh change since the first `up` means a new bin directory.
  expect(processesFrom(readRecord(paths)?.binDir ?? '', paths.root)).toHaveLength(5);
  const status = await cluster('status');
  expect(status.stdout).toContain('nodes: 10/10 Ready');
  expect(status.stdout).toMatch(new RegExp(`${WEBHOOK_COMPONENT} +pid \\d+ +running`));
  // `up` twice is safe: it reuses the running cluster.
  const again = await cluster('up');
  expect(again.stderr).toContain('(reused)');
  // A dead webhook alone is restarted by `up` on the reused cluster, and serves v1alpha1 again.
  const webhook = readRecord(paths)?.processes.find((p) => p.name === WEBHOOK_COMPONENT);
  if (!webhook) throw new Error('no webhook in the cluster record');
  process.kill(webhook.pid, 'SIGKILL');
  while (isRunning(webhook)) await new Promise((r) => setTimeout(r, 50));
  expect(await servesV1alpha1(paths.kubeconfig, options.portBase + 6)).toBe(false);
  const restarted = await cluster('up');
  expect(restarted.stderr).toContain('conversion webhook (re)started');
  expect(restarted.stderr).toContain('(reused)');
  const next = readRecord(paths)?.processes.filter((p) => p.name === WEBHOOK_COMPONENT) ?? [];
  expect(next).toHaveLength(1);
  expect(next[0]?.pid).not.toBe(webhook.pid);
  expect(next[0] && isRunning(next[0])).toBe(true);
  expect(await servesV1alpha1(paths.kubeconfig, options.portBase + 6)).toBe(true);
  expect((await cluster('kubeconfig')).stdout.trim().split('\n').at(-1)).toBe(paths.kubeconfig);
});
