// Our controller manager as a child process: `agent-sandbox controller` started through the CLI's
// bin script with Node directly (not through npx, whose npm process would sit between us and the
// pid whose CPU and memory we read). Its pino log goes to a file; the "serving" line tells us
// the metrics port it bound (port 0: the kernel picks a free one).
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../packages/cli/bin/agent-sandbox.js', import.meta.url));

export interface ControllerProcess {
  pid: number;
  metricsUrl: string;
  logFile: string;
  /** The flags it was started with, for the report. */
  args: string[];
  metrics(): Promise<string>;
  stop(): Promise<void>;
}

export async function startController(
  kubeconfig: string,
  logFile: string,
  extraArgs: readonly string[],
): Promise<ControllerProcess> {
  const args = [
    'controller',
    `--kubeconfig=${kubeconfig}`,
    '--metrics-bind-address=127.0.0.1:0',
    '--health-probe-bind-address=127.0.0.1:0',
    // One manager and no Lease traffic in the write counts; election itself is tested elsewhere.
    '--leader-elect=false',
    // No webhook of its own: the harness's webhook-only manager already serves the CRDs'
    // conversion, and a second one would repoint them and put its TLS work in the measured CPU.
    '--enable-webhook=false',
    ...extraArgs,
  ];
  const fd = openSync(logFile, 'w');
  const child: ChildProcess = spawn(process.execPath, [BIN, ...args], {
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const metricsAddress = await waitForServing(logFile, exited);
  const metricsUrl = `http://${metricsAddress}/metrics`;
  return {
    pid: child.pid!,
    metricsUrl,
    logFile,
    args,
    metrics: async () => {
      const res = await fetch(metricsUrl);
      if (!res.ok) throw new Error(`controller ${metricsUrl}: HTTP ${res.status}`);
      return res.text();
    },
    stop: async () => {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Polls the log for the manager's "serving" line; fails if the process exits first. */
async function waitForServing(logFile: string, exited: Promise<number | null>): Promise<string> {
  let code: number | null | undefined;
  void exited.then((c) => (code = c === null ? -1 : c));
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (code !== undefined)
      throw new Error(`the controller exited with ${code} before serving; see ${logFile}`);
    for (const line of readFileSync(logFile, 'utf8').split('\n')) {
      if (!line.includes('"serving"')) continue;
      const { metricsAddress } = JSON.parse(line) as { metricsAddress?: string };
      if (metricsAddress) return metricsAddress;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the controller did not log its metrics address within 60 s; see ${logFile}`);
}
