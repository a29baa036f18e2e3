// The API servers under test, each reached through the same client (client.ts):
//   kube      kube-apiserver v1.36.3 + etcd of test/cluster (HTTPS, admin client certificate): by
//             default a private cluster this run starts and stops (its own state dir and ports,
//             one fake node), so no other session's tests load it or `down` it mid-run
//   mem       the embedded server in this process, in-memory SQLite, plain HTTP
//   file      the embedded server in its own process, SQLite file, group commit, plain HTTP
//   file-tls  as file, over HTTPS with a bearer token (how `agent-sandbox apiserver` serves)
//   file-normal  as file, with synchronous=NORMAL (no fsync per commit, like the harness's etcd)
//   file-each as file, group commit off: one transaction and one fsync per write (before ADR 0010)
import { readOurCrds, startTestApiServer } from '@agent-sandbox/apiserver/testing';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { clusterOptions, ensureCluster, stopCluster } from '../../test/support/cluster.ts';
import type { ClusterOptions } from '../../test/cluster/src/options.ts';
import { clientFor, type Client } from './client.ts';

export const TARGET_KEYS = ['kube', 'mem', 'file', 'file-tls', 'file-normal', 'file-each'] as const;
export type TargetKey = (typeof TARGET_KEYS)[number];

export const TARGET_DESCRIPTIONS: Record<TargetKey, string> = {
  kube: 'kube-apiserver v1.36.3 + etcd 3.6.8 (test/cluster; HTTPS, client certificate; etcd runs --unsafe-no-fsync)',
  mem: 'embedded ApiServer in the benchmark process, in-memory SQLite, plain HTTP (shares the event loop with the client)',
  file: 'embedded ApiServer in its own node process, SQLite file with WAL, group commit (one fsync per batch, acked after it), plain HTTP',
  'file-tls':
    'embedded ApiServer in its own node process, SQLite file (group commit), HTTPS + bearer token',
  'file-normal':
    'as file, with synchronous=NORMAL (no fsync per commit; the closer match to etcd --unsafe-no-fsync)',
  'file-each':
    'as file, group commit off: one transaction and one fsync per write (synchronous=FULL; before ADR 0010)',
};

export interface BenchTarget {
  key: TargetKey;
  client: Client;
  /** The target's kubeconfig (for kubectl). */
  kubeconfig: string;
  /** Server processes whose CPU time and RSS we can read from /proc; none for `mem`. */
  pids: number[];
  stop(): Promise<void>;
}

const PROCESS_SCRIPT = fileURLToPath(new URL('./embedded-process.ts', import.meta.url));

export interface StartOptions {
  /** Reuse the shared cluster of `npm run cluster -- up` instead of starting a private one. */
  sharedCluster: boolean;
  log: (message: string) => void;
}

export async function startTarget(key: TargetKey, options: StartOptions): Promise<BenchTarget> {
  switch (key) {
    case 'kube':
      return startKube(options);
    case 'mem': {
      const server = await startTestApiServer({ crds: readOurCrds() });
      const client = clientFor(key, server.kubeconfigPath);
      return {
        key,
        client,
        kubeconfig: server.kubeconfigPath,
        pids: [],
        stop: async () => {
          client.close();
          await server.close();
        },
      };
    }
    case 'file':
    case 'file-tls':
    case 'file-normal':
    case 'file-each':
      return startProcess(key, key === 'file-tls', key === 'file-normal' ? 'normal' : 'full');
  }
}

async function startKube(options: StartOptions): Promise<BenchTarget> {
  const overrides: Partial<ClusterOptions> = options.sharedCluster ? {} : await privateCluster();
  if (overrides.stateDir)
    options.log(`kube: private cluster in ${overrides.stateDir}, ports ${overrides.portBase}+`);
  let stopKube = async (): Promise<void> => undefined;
  if (!options.sharedCluster)
    stopKube = async () => {
      await stopCluster(overrides);
      if (overrides.stateDir) rmSync(overrides.stateDir, { recursive: true, force: true });
    };
  try {
    const { kubeconfig } = await ensureCluster(overrides);
    const client = clientFor('kube', kubeconfig);
    const pids: number[] = [];
    try {
      const state = JSON.parse(
        readFileSync(join(clusterOptions(overrides).stateDir, 'cluster.json'), 'utf8'),
      ) as { processes?: { name: string; pid: number }[] };
      for (const p of state.processes ?? [])
        if (p.name === 'kube-apiserver' || p.name === 'etcd') pids.push(p.pid);
    } catch {
      // No cluster.json: the CPU and RSS columns stay empty for kube.
    }
    await installCrds(client);
    return {
      key: 'kube',
      client,
      kubeconfig,
      pids,
      stop: async () => {
        client.close();
        await stopKube();
      },
    };
  } catch (err) {
    await stopKube();
    throw err;
  }
}

/** A state dir of our own and six free loopback ports below the ephemeral range. */
async function privateCluster(): Promise<{ stateDir: string; portBase: number; nodes: number }> {
  const free = (port: number): Promise<boolean> =>
    new Promise((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
  for (let base = 32420; base < 32760; base += 10) {
    const ports = Array.from({ length: 6 }, (_, i) => base + i);
    if ((await Promise.all(ports.map(free))).every(Boolean))
      return {
        stateDir: mkdtempSync(join(tmpdir(), 'bench-apiserver-cluster-')),
        portBase: base,
        nodes: 1,
      };
  }
  throw new Error('no six free ports in 32420..32759 for a private cluster; try --shared-cluster');
}

/** Our CRDs, so Sandboxes can be created on kube-apiserver too; 409 means already there. */
async function installCrds(client: Client): Promise<void> {
  for (const crd of readOurCrds()) {
    const res = await client.request(
      'POST',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      crd,
    );
    if (res.status !== 201 && res.status !== 409)
      throw new Error(`kube: install CRD ${crd.metadata.name}: ${res.status}`);
  }
  for (const crd of readOurCrds()) {
    const path = `/apis/${crd.spec.group}/v1beta1/${crd.spec.names.plural}?limit=1`;
    for (let i = 0; ; i++) {
      if ((await client.request('GET', path)).status === 200) break;
      if (i >= 100) throw new Error(`kube: CRD ${crd.metadata.name} not served after 10 s`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

async function startProcess(
  key: TargetKey,
  tls: boolean,
  synchronous: 'full' | 'normal',
): Promise<BenchTarget> {
  const dir = mkdtempSync(join(tmpdir(), `bench-apiserver-${key}-`));
  const args = ['--import', 'tsx', PROCESS_SCRIPT, '--dir', dir, '--synchronous', synchronous];
  if (tls) args.push('--tls');
  if (key === 'file-each') args.push('--commit-each');
  const child: ChildProcess = spawn(process.execPath, args, {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${key}: no URL within 30 s`)), 30_000);
    child.once('exit', (code) => reject(new Error(`${key}: server exited with ${code}`)));
    createInterface({ input: child.stdout! }).once('line', (l) => {
      clearTimeout(timer);
      resolve(l);
    });
  });
  const { kubeconfig, pid } = JSON.parse(line) as { kubeconfig: string; pid: number };
  const client = clientFor(key, kubeconfig);
  return {
    key,
    client,
    kubeconfig,
    pids: [pid],
    stop: async () => {
      client.close();
      const exited = new Promise<void>((resolve) => {
        if (child.exitCode !== null) resolve();
        else child.once('exit', () => resolve());
      });
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** CPU seconds (user + system) the processes have used so far; undefined when unreadable. */
export function cpuSeconds(pids: number[]): number | undefined {
  if (pids.length === 0) return undefined;
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // Fields after the ")" that closes the command name; utime and stime are fields 14, 15.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      return undefined;
    }
  }
  return ticks / 100; // USER_HZ is 100 on Linux
}

/** Resident set size in MB, summed over the processes; undefined when unreadable. */
export function rssMb(pids: number[]): number | undefined {
  if (pids.length === 0) return undefined;
  let kb = 0;
  for (const pid of pids) {
    try {
      const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      kb += Number(match?.[1] ?? NaN);
    } catch {
      return undefined;
    }
  }
  return Math.round(kb / 1024);
}
