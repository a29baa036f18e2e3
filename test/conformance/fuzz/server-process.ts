// The two servers the fuzzer measures: the embedded one started as a child (embedded-server.ts)
// and the harness's kube-apiserver, each by its pid, with its resident memory read from /proc.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { status } from '../../cluster/src/cluster.ts';
import { clusterOptions } from '../../support/cluster.ts';

const SCRIPT = fileURLToPath(new URL('./embedded-server.ts', import.meta.url));

export interface EmbeddedProcess {
  kubeconfigPath: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts embedded-server.ts under tsx; resolves once it serves. */
export async function startEmbeddedProcess(): Promise<EmbeddedProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const line = await new Promise<string>((resolve, reject) => {
    void exited.then(() => reject(new Error('the embedded server exited before serving')));
    createInterface({ input: child.stdout }).once('line', resolve);
  });
  const { kubeconfig, pid } = JSON.parse(line) as { kubeconfig: string; pid: number };
  return {
    kubeconfigPath: kubeconfig,
    pid,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The harness's kube-apiserver process id. */
export async function kubeApiserverPid(): Promise<number> {
  const { components } = await status(clusterOptions());
  const apiserver = components.find((c) => c.name === 'kube-apiserver' && c.running);
  if (!apiserver) throw new Error('the harness has no running kube-apiserver');
  return apiserver.pid;
}

/** A process's resident set in MiB (VmRSS), or NaN once it is gone. */
export function rssMiB(pid: number): number {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? NaN : Number(kb) / 1024;
  } catch {
    return NaN;
  }
}

/** Before, peak and after of one process's RSS over a run, sampled by `sample()`. */
export class RssTrack {
  readonly before: number;
  peak: number;
  constructor(readonly pid: number) {
    this.before = rssMiB(pid);
    this.peak = this.before;
  }
  sample(): number {
    const now = rssMiB(this.pid);
    if (now > this.peak) this.peak = now;
    return now;
  }
  describe(name: string): string {
    const f = (n: number): string => `${n.toFixed(0)} MiB`;
    return `${name} RSS before ${f(this.before)}, peak ${f(this.peak)}, after ${f(this.sample())}`;
  }
}
