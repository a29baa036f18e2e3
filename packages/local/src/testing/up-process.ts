// `agent-sandbox up` as a user runs it, for tests: the real CLI in its own process on a data dir
// the test owns, waited on until it serves, and the checks that a stop left nothing of the node
// behind. The suites of `up` itself and the e2e journeys (test/e2e) start it the same way.
import { findLeaks } from '@agent-sandbox/kubelet/testing';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { nodeCgroupParent } from '../node-agent.ts';

/** The `agent-sandbox` command (bin of packages/cli), run by path as `npx agent-sandbox` does. */
export const CLI_BIN = join(import.meta.dirname, '../../../cli/bin/agent-sandbox.js');

/** A bridge and pod CIDR of this process: suites from other checkouts must not collide. */
export interface UpNetwork {
  bridge: string;
  /** The first three octets, e.g. `10.213.7`. */
  subnet: string;
  cidr: string;
}

export function upNetwork(prefix: string, secondOctet: number): UpNetwork {
  const subnet = `10.${secondOctet}.${process.pid % 250}`;
  return { bridge: `${prefix}${process.pid % 100_000}`, subnet, cidr: `${subnet}.0/24` };
}

export interface UpEndpoints {
  apiServer: string;
  kubeconfig: string;
  router?: string;
}

export interface UpProcess {
  child: ChildProcess;
  /** What `up` printed so far (stdout and stderr). */
  output(): string;
  exited: Promise<number | null>;
  /** DIR/endpoints.json, once `up` serves. */
  endpoints(): UpEndpoints;
  /** The in-sandbox daemons' last lines (daemonLines), for a failing test to print. */
  daemonLog(perContainer?: number): string;
}

export interface StartUpOptions {
  dataDir: string;
  network: UpNetwork;
  /** More flags of `up`, e.g. `--demo`. */
  args?: string[];
  /** Flags of node itself, before the CLI, e.g. `--cpu-prof` (not allowed in NODE_OPTIONS). */
  nodeArgs?: string[];
  /** Resolve once the output matches this. @default /^endpoints: /m */
  until?: RegExp;
  /** @default 60_000 */
  timeoutMs?: number;
  env?: NodeJS.ProcessEnv;
}

/** Spawns `up` on the data dir and resolves once its output matches `until`. */
export async function startUp(o: StartUpOptions): Promise<UpProcess> {
  const { bridge, cidr } = o.network;
  const child = spawn(
    process.execPath,
    [
      ...(o.nodeArgs ?? []),
      CLI_BIN,
      'up',
      '--data-dir',
      o.dataDir,
      '--port',
      '0',
      '--pod-cidr',
      cidr,
      '--bridge',
      bridge,
    ].concat(o.args ?? []),
    { stdio: ['ignore', 'pipe', 'pipe'], env: o.env ?? process.env },
  );
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const until = o.until ?? /^endpoints: /m;
  const end = Date.now() + (o.timeoutMs ?? 60_000);
  while (!until.test(out)) {
    if (Date.now() > end || child.exitCode !== null) {
      if (child.exitCode === null) child.kill('SIGKILL');
      throw new Error(`up did not come up:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    child,
    output: () => out,
    exited,
    endpoints: () =>
      JSON.parse(readFileSync(join(o.dataDir, 'endpoints.json'), 'utf8')) as UpEndpoints,
    daemonLog: (perContainer) => daemonLines(o.dataDir, perContainer),
  };
}

const readOr = (path: string): string => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
};

/**
 * The last `perContainer` lines each in-sandbox daemon wrote to stderr, which the node logs as
 * `in-sandbox daemon` into DIR/up.log (and its last rotation), grouped by container: with the
 * daemons at `--log-level debug`, what each did with every Start and when.
 */
export function daemonLines(dataDir: string, perContainer = 40): string {
  const text = readOr(join(dataDir, 'up.log.1')) + readOr(join(dataDir, 'up.log'));
  const byContainer = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    if (!line.includes('"msg":"in-sandbox daemon')) continue;
    let entry: { container?: string; daemon?: unknown };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      continue; // a line cut by a crash: the rest still says what happened
    }
    const lines = byContainer.get(entry.container ?? '?') ?? [];
    lines.push(entry.daemon !== undefined ? JSON.stringify(entry.daemon) : line);
    byContainer.set(entry.container ?? '?', lines);
  }
  if (byContainer.size === 0) return `no in-sandbox daemon lines in ${dataDir}/up.log`;
  return [...byContainer]
    .map(([container, lines]) => `${container}:\n  ${lines.slice(-perContainer).join('\n  ')}`)
    .join('\n');
}

/** SIGINT and its exit code; SIGKILL after `graceMs` (a hung stop must not hang the suite). */
export async function stopUp(up: UpProcess, graceMs = 30_000): Promise<number | null> {
  if (up.child.exitCode !== null || up.child.signalCode !== null) return up.exited;
  up.child.kill('SIGINT');
  const timer = setTimeout(() => up.child.kill('SIGKILL'), graceMs);
  try {
    return await up.exited;
  } finally {
    clearTimeout(timer);
  }
}

/** What a stopped `up` left of the node: processes, mounts, netns, cgroups, bridge, nft. */
export function upLeaks(dataDir: string, network: UpNetwork): string[] {
  const node = join(dataDir, 'node');
  const leaks = findLeaks({
    dataDir: node,
    runtimeStateDirs: [join(node, 'runc'), join(node, 'runsc'), join(node, 'bwrap')],
    netnsPrefix: `${network.bridge}-`,
    cgroupParent: nodeCgroupParent(network.bridge),
  });
  if (spawnSync('ip', ['link', 'show', network.bridge]).status === 0)
    leaks.push(`bridge ${network.bridge}`);
  // The bridge's tables are `<bridge>_nat_<bridge>` and `<bridge>_policy_<bridge>`: by name, not
  // by substring (bridge asbu12 is in asbu123's table names).
  const tables = spawnSync('nft', ['list', 'tables'], { encoding: 'utf8' })
    .stdout.split('\n')
    .map((l) => l.split(' ')[2] ?? '')
    .filter((t) => t.startsWith(`${network.bridge}_`));
  for (const t of tables) leaks.push(`nft table ${t}`);
  return leaks;
}
