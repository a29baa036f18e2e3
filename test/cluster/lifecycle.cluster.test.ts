// Must-show (issue 3): `down` leaves no process and no data behind, and `up` after `down` works.
// Drives the real CLI, as CI and developers do.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, expect, it } from 'vitest';
import { portsFor } from './src/options.ts';
import { readRecord, statePaths } from './src/state.ts';
import { clusterOptions, ensureCluster } from '../support/cluster.ts';

const run = promisify(execFile);
const CLI = join(import.meta.dirname, 'cli.ts');

function cluster(...args: string[]) {
  return run(process.execPath, ['--import', 'tsx', CLI, ...args], { timeout: 600_000 });
}

/** PIDs of every process whose executable lives in the harness bin directory. */
function processesFrom(binDir: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readlinkSync(`/proc/${pid}/exe`).startsWith(binDir);
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
  await ensureCluster();
});

it('down stops every process and removes all data; up after down works', async () => {
  const options = clusterOptions();
  const paths = statePaths(options.stateDir);
  const record = readRecord(paths);
  expect(record).toBeDefined();
  const binDir = record?.binDir ?? '';
  expect(processesFrom(binDir)).toHaveLength(5);

  await cluster('down');
  expect(processesFrom(binDir)).toEqual([]);
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
  expect(processesFrom(readRecord(paths)?.binDir ?? '')).toHaveLength(5);
  const status = await cluster('status');
  expect(status.stdout).toContain('nodes: 10/10 Ready');
  // `up` twice is safe: it reuses the running cluster.
  const again = await cluster('up');
  expect(again.stderr).toContain('(reused)');
  expect((await cluster('kubeconfig')).stdout.trim().split('\n').at(-1)).toBe(paths.kubeconfig);
});
