// The degraded pod network: its own network namespace with only loopback up, no IP. Used until
// (or where) the bridge network cannot run; `mode` says so, and pods get no podIP.
import { readdir } from 'node:fs/promises';
import { KubeletError } from '../errors.ts';
import { runCommand } from '../host/run-command.ts';
import type { PodNetwork, PodNetworkStatus, PodNetworkTarget } from './pod-network.ts';

const NETNS_DIR = '/run/netns';

export interface LoopbackPodNetworkOptions {
  /** Prefix of the netns names this agent owns. @default 'asb-lo-' */
  prefix?: string;
}

export class LoopbackPodNetwork implements PodNetwork {
  readonly mode = 'loopback (degraded: no pod IP, no pod-to-pod or host traffic)';
  readonly #prefix: string;

  constructor(options: LoopbackPodNetworkOptions = {}) {
    this.#prefix = options.prefix ?? 'asb-lo-';
  }

  async setUp(pod: PodNetworkTarget): Promise<PodNetworkStatus> {
    const name = this.#prefix + pod.uid;
    const existing = await this.list();
    if (!existing.includes(pod.uid)) {
      await ip(['netns', 'add', name], `create network namespace ${name}`);
    }
    await ip(['-n', name, 'link', 'set', 'lo', 'up'], `bring up loopback in ${name}`);
    return { netnsPath: `${NETNS_DIR}/${name}`, ips: [] };
  }

  async tearDown(pod: Pick<PodNetworkTarget, 'uid'>): Promise<void> {
    if (!(await this.list()).includes(pod.uid)) return;
    await ip(['netns', 'delete', this.#prefix + pod.uid], `delete network namespace`);
  }

  async list(): Promise<string[]> {
    const names = await readdir(NETNS_DIR).catch(() => [] as string[]);
    return names.filter((n) => n.startsWith(this.#prefix)).map((n) => n.slice(this.#prefix.length));
  }
}

async function ip(args: string[], what: string): Promise<void> {
  const r = await runCommand('ip', args);
  if (r.code !== 0)
    throw new KubeletError(
      'Network',
      `cannot ${what}: ip ${args.join(' ')} exited ${r.code}: ${r.stderr.trim()}` +
        (r.code === 127 ? ' (install iproute2)' : ''),
    );
}
