import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildBinaries } from './build.ts';
import {
  componentSpecs,
  kubeconfigYaml,
  schedulerConfigYaml,
  type ComponentSpec,
} from './components.ts';
import { ClusterError } from './errors.ts';
import { acquireLock } from './lock.ts';
import { countNodes, scaleNodes, waitForNodes } from './nodes.ts';
import {
  DEFAULT_NODES,
  HARNESS_DIR,
  portsFor,
  type ClusterOptions,
  type Ports,
} from './options.ts';
import { createPki, pkiFiles } from './pki.ts';
import { assertOutsideEphemeralRange, assertPortFree, isHealthy, waitFor } from './probe.ts';
import { isRunning, logTail, startDetached, stopProcess } from './processes.ts';
import { readRecord, statePaths, writeRecord, type ClusterRecord } from './state.ts';
import { WEBHOOK_COMPONENT, startWebhook, webhookStartError } from './webhook.ts';

export type Log = (message: string) => void;

export interface UpResult {
  kubeconfig: string;
  /** True when a healthy cluster was already running; only its node count was reconciled. */
  reused: boolean;
}

/** How long each component gets to answer its health check (envtest allows 20 s each). */
const START_TIMEOUT_MS: Record<ComponentSpec['name'], number> = {
  etcd: 30_000,
  'kube-apiserver': 90_000,
  'kube-controller-manager': 60_000,
  'kube-scheduler': 60_000,
  kwok: 60_000,
};

/**
 * Starts the cluster, or reuses it when every recorded process is alive and the apiserver is
 * ready (so `up` twice is safe), then reconciles the node count and waits for Ready nodes.
 */
export async function up(options: ClusterOptions, log: Log): Promise<UpResult> {
  const release = await acquireLock(options.stateDir);
  try {
    const paths = statePaths(options.stateDir);
    const previous = readRecord(paths);
    if (previous && (await isUp(previous, options))) {
      log(`cluster: already running (${options.stateDir})`);
      if (options.nodes !== undefined) {
        await scaleNodes(paths.kubeconfig, options.nodes);
        await waitForNodes(paths.kubeconfig, options.nodes, nodeTimeoutMs(options.nodes));
      }
      await ensureWebhook(previous, options, log);
      return { kubeconfig: paths.kubeconfig, reused: true };
    }
    if (previous) {
      log('cluster: a previous cluster is only partly running; stopping what is left of it');
      await stopAll(previous);
    }
    rmSync(paths.root, { recursive: true, force: true });
    await start(options, log);
    return { kubeconfig: paths.kubeconfig, reused: false };
  } finally {
    release();
  }
}

async function start(options: ClusterOptions, log: Log): Promise<void> {
  const binDir = options.binDir ?? (await buildBinaries(options.cacheDir));
  const ports = portsFor(options.portBase);
  await assertPortsFree(ports);
  const paths = statePaths(options.stateDir);
  for (const dir of [paths.root, paths.logs, paths.config]) mkdirSync(dir, { recursive: true });
  const pki = createPki(paths.pki);
  writeFileSync(paths.kubeconfig, kubeconfigYaml(ports, pki), { mode: 0o600 });
  writeFileSync(join(paths.config, 'scheduler.yaml'), schedulerConfigYaml(paths.kubeconfig));
  const specs = componentSpecs({
    binDir,
    ports,
    paths,
    pki,
    kwokStages: join(HARNESS_DIR, 'kwok-stages.yaml'),
  });
  for (const spec of specs) {
    if (!existsSync(spec.binary)) {
      throw new ClusterError(
        'BUILD_FAILED',
        `${spec.binary} does not exist; rerun test/cluster/build.sh or fix AGENT_SANDBOX_CLUSTER_BIN`,
      );
    }
  }
  const record: ClusterRecord = { binDir, ports, processes: [] };
  try {
    // etcd, then the apiserver, then its three clients together (recipe §6).
    const groups = [specs.slice(0, 1), specs.slice(1, 2), specs.slice(2)];
    for (const group of groups) {
      const started = group.map((spec) => {
        const proc = startDetached(
          spec.name,
          spec.binary,
          spec.args,
          join(paths.logs, `${spec.name}.log`),
        );
        record.processes.push(proc);
        writeRecord(paths, record);
        return { spec, proc };
      });
      await Promise.all(
        started.map(async ({ spec, proc }) => {
          const t0 = Date.now();
          await waitFor(
            () => isHealthy(spec.healthUrl, spec.name === 'kube-apiserver' ? pki : undefined),
            {
              what: `${spec.name} (log ${proc.logFile})`,
              timeoutMs: START_TIMEOUT_MS[spec.name],
              abortIf: () =>
                isRunning(proc)
                  ? undefined
                  : `exited during startup; last log lines:\n${logTail(proc.logFile)}`,
            },
          );
          log(
            `cluster: ${spec.name} ready in ${((Date.now() - t0) / 1000).toFixed(1)}s (pid ${proc.pid})`,
          );
        }),
      );
    }
    // Pods pass ServiceAccount admission only once KCM has created the namespace's default SA.
    const apiserver = `https://127.0.0.1:${ports.apiserver}`;
    await waitFor(
      () => isHealthy(`${apiserver}/api/v1/namespaces/default/serviceaccounts/default`, pki),
      {
        what: 'the default ServiceAccount (kube-controller-manager serviceaccount-controller)',
        timeoutMs: 60_000,
      },
    );
    const nodes = options.nodes ?? DEFAULT_NODES;
    await scaleNodes(paths.kubeconfig, nodes);
    await waitForNodes(paths.kubeconfig, nodes, nodeTimeoutMs(nodes));
    log(`cluster: ${nodes} kwok nodes Ready`);
    const t0 = Date.now();
    const webhook = await startWebhook({ paths, port: ports.webhook }, (proc) => {
      record.processes.push(proc);
      writeRecord(paths, record);
    });
    log(
      `cluster: CRDs installed, conversion webhook serving v1alpha1 in ${((Date.now() - t0) / 1000).toFixed(1)}s (pid ${webhook.pid})`,
    );
  } catch (err: unknown) {
    await stopAll(record);
    const reason = err instanceof Error ? err.message : String(err);
    throw new ClusterError(
      err instanceof ClusterError ? err.code : 'START_FAILED',
      `${reason}\nstopped what had started; logs are kept in ${paths.logs} until ` +
        '`npm run cluster -- down`',
      { cause: err },
    );
  }
}

function nodeTimeoutMs(nodes: number): number {
  return 60_000 + nodes * 500;
}

async function assertPortsFree(ports: Ports): Promise<void> {
  const numbers = Object.values(ports);
  assertOutsideEphemeralRange(Math.min(...numbers), Math.max(...numbers));
  for (const [name, port] of Object.entries(ports)) await assertPortFree(port, name);
}

/**
 * True when the control plane runs. The webhook is not part of it: `up` on a reused cluster
 * restarts a dead webhook alone (ensureWebhook) rather than the whole cluster.
 */
async function isUp(record: ClusterRecord, options: ClusterOptions): Promise<boolean> {
  const control = record.processes.filter((p) => p.name !== WEBHOOK_COMPONENT);
  const names = new Set(control.map((p) => p.name));
  if (names.size < Object.keys(START_TIMEOUT_MS).length) return false; // `up` died midway
  if (!control.every(isRunning)) return false;
  const pki = pkiFiles(statePaths(options.stateDir).pki);
  return isHealthy(`https://127.0.0.1:${record.ports.apiserver}/readyz`, pki);
}

/**
 * On a reused cluster: keeps a running webhook, else starts a new one (a cluster from before the
 * webhook existed gets one too). A running one is not probed: a test may point the CRDs at a
 * webhook of its own for a while (controller-webhook.cluster.test.ts), and a restart here would
 * take them back from it.
 */
async function ensureWebhook(record: ClusterRecord, options: ClusterOptions, log: Log) {
  const paths = statePaths(options.stateDir);
  const port = portsFor(options.portBase).webhook;
  const current = record.processes.find((p) => p.name === WEBHOOK_COMPONENT);
  if (current && isRunning(current)) return;
  record.processes = record.processes.filter((p) => p !== current);
  record.ports = { ...record.ports, webhook: port };
  writeRecord(paths, record);
  try {
    const proc = await startWebhook({ paths, port }, (p) => {
      record.processes.push(p);
      writeRecord(paths, record);
    });
    log(`cluster: conversion webhook (re)started (pid ${proc.pid})`);
  } catch (err: unknown) {
    throw webhookStartError(err);
  }
}

/** Stops recorded processes in reverse start order, each by its PID. */
async function stopAll(record: ClusterRecord): Promise<void> {
  for (const proc of [...record.processes].reverse()) await stopProcess(proc);
}

/** Stops every process `up` recorded and removes the state directory. Safe when nothing runs. */
export async function down(options: ClusterOptions, log: Log): Promise<void> {
  const release = await acquireLock(options.stateDir);
  try {
    const paths = statePaths(options.stateDir);
    const record = readRecord(paths);
    if (record) {
      await stopAll(record);
      log(`cluster: stopped ${record.processes.map((p) => `${p.name} (${p.pid})`).join(', ')}`);
    }
    rmSync(paths.root, { recursive: true, force: true });
    log(`cluster: removed ${paths.root}`);
  } finally {
    release();
  }
}

export interface ComponentStatus {
  name: string;
  pid: number;
  running: boolean;
  logFile: string;
}

export interface StatusResult {
  up: boolean;
  components: ComponentStatus[];
  nodes?: { total: number; ready: number };
  kubeconfig?: string;
}

export async function status(options: ClusterOptions): Promise<StatusResult> {
  const paths = statePaths(options.stateDir);
  const record = readRecord(paths);
  if (!record) return { up: false, components: [] };
  const components = record.processes.map((p) => ({
    name: p.name,
    pid: p.pid,
    running: isRunning(p),
    logFile: p.logFile,
  }));
  if (!(await isUp(record, options))) return { up: false, components };
  return {
    up: true,
    components,
    nodes: await countNodes(paths.kubeconfig),
    kubeconfig: paths.kubeconfig,
  };
}

/** The kubeconfig of a running cluster; NOT_RUNNING tells the caller to run `up` first. */
export async function kubeconfigPath(options: ClusterOptions): Promise<string> {
  const paths = statePaths(options.stateDir);
  const record = readRecord(paths);
  if (!record || !(await isUp(record, options))) {
    throw new ClusterError(
      'NOT_RUNNING',
      'no cluster is running; start one with `npm run cluster -- up`',
    );
  }
  return paths.kubeconfig;
}
