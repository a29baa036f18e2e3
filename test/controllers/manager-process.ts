// `agent-sandbox controller` as a real child process that the chaos scenario starts, scrapes and
// SIGKILLs: no graceful shutdown, no Lease release, in-flight requests cut off mid-reconcile.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../packages/cli/bin/agent-sandbox.js', import.meta.url));

/** What one manager generation did, read from its /metrics just before the kill. */
export interface ManagerSample {
  /** controller_runtime_reconcile_total of the sandbox controller, all results. */
  reconciles: number;
  /** controller_runtime_reconcile_errors_total of the sandbox controller. */
  reconcileErrors: number;
  /** controller_runtime_active_workers: reconciles in flight at the scrape. */
  activeWorkers: number;
  /** workqueue_depth: keys waiting at the scrape. */
  queueDepth: number;
  /** rest_client_requests_total for POST, PUT, PATCH and DELETE. */
  writes: number;
}

export interface ManagerProcess {
  readonly child: ChildProcess;
  /** Resolves with the metrics address once the manager logs `serving`. */
  readonly serving: Promise<string>;
  readonly exited: Promise<number | null>;
  /** Everything the process wrote (JSON log lines). */
  output(): string;
  /** When (epoch ms) it logged `starting workers`: its caches had synced. */
  workersStartedAt(): number | undefined;
  sample(): Promise<ManagerSample>;
  /** SIGKILL and wait for the exit. */
  kill(): Promise<void>;
}

/**
 * Starts the manager against `kubeconfigPath` with leader election off (one manager at a time;
 * a SIGKILLed leader would otherwise block its successor for the whole lease duration) and
 * metrics on a free port.
 */
export function startManager(kubeconfigPath: string, extraArgs: string[] = []): ManagerProcess {
  const child = spawn(
    process.execPath,
    [
      BIN,
      'controller',
      `--kubeconfig=${kubeconfigPath}`,
      '--metrics-bind-address=127.0.0.1:0',
      '--health-probe-bind-address=0',
      '--leader-elect=false',
      '--enable-webhook=false',
      ...extraArgs,
    ],
    { env: { ...process.env, KUBECONFIG: '' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let workersStartedAt: number | undefined;
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const serving = new Promise<string>((resolve, reject) => {
    const onData = (d: Buffer): void => {
      out += d.toString();
      if (workersStartedAt === undefined && out.includes('"msg":"starting workers"'))
        workersStartedAt = Date.now();
      const address = servingAddress(out);
      if (address !== undefined) resolve(address);
    };
    child.stderr?.on('data', onData);
    child.stdout?.on('data', onData);
    void exited.then((code) =>
      reject(new Error(`the manager exited (${code}) before serving:\n${out.slice(-2_000)}`)),
    );
  });
  serving.catch(() => undefined);
  return {
    child,
    serving,
    exited,
    output: () => out,
    workersStartedAt: () => workersStartedAt,
    sample: async () => parseSample(await (await fetch(`http://${await serving}/metrics`)).text()),
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

function servingAddress(log: string): string | undefined {
  for (const line of log.split('\n')) {
    if (!line.includes('"msg":"serving"')) continue;
    return (JSON.parse(line) as { metricsAddress: string }).metricsAddress;
  }
  return undefined;
}

/** Sums the Prometheus text samples of `family` whose labels contain every `match` pair. */
export function sumSamples(text: string, family: string, match: Record<string, string>): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${family}{`) && !line.startsWith(`${family} `)) continue;
    const labels = line.slice(family.length).match(/^\{(.*)\}/)?.[1] ?? '';
    const ok = Object.entries(match).every(([k, v]) => labels.includes(`${k}="${v}"`));
    if (ok) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

export function parseSample(text: string): ManagerSample {
  const sandbox = { controller: 'sandbox' };
  return {
    reconciles: sumSamples(text, 'controller_runtime_reconcile_total', sandbox),
    reconcileErrors: sumSamples(text, 'controller_runtime_reconcile_errors_total', sandbox),
    activeWorkers: sumSamples(text, 'controller_runtime_active_workers', sandbox),
    queueDepth: sumSamples(text, 'workqueue_depth', { name: 'sandbox' }),
    writes: ['POST', 'PUT', 'PATCH', 'DELETE']
      .map((method) => sumSamples(text, 'rest_client_requests_total', { method }))
      .reduce((a, b) => a + b, 0),
  };
}
