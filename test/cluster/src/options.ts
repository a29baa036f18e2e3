import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ClusterError } from './errors.ts';

/** Every component listens on 127.0.0.1 at portBase + its offset (ADR 0004). */
export const PORT_OFFSETS = {
  etcdClient: 0,
  etcdPeer: 1,
  apiserver: 2,
  controllerManager: 3,
  scheduler: 4,
  kwok: 5,
  /** The webhook-only `agent-sandbox controller` (webhook.ts). */
  webhook: 6,
} as const;

export type PortName = keyof typeof PORT_OFFSETS;
export type Ports = Record<PortName, number>;

export interface ClusterOptions {
  /** Runtime data: certificates, etcd data, logs, pids, kubeconfig. `down` removes it. */
  stateDir: string;
  /** Root of the binary cache; build.sh adds a directory per pin hash. */
  cacheDir: string;
  /** Use these prebuilt binaries instead of running build.sh. */
  binDir: string | undefined;
  /**
   * First of seven consecutive loopback ports. Below 32768 so the kernel never hands them out as
   * ephemeral ports (kwokctl's trick).
   * @default 32400
   */
  portBase: number;
  /**
   * Fake nodes to reconcile to. Unset: 10 on a fresh start, and a reused cluster keeps the count
   * it has (so a test run does not shrink a 100-node benchmark cluster).
   */
  nodes: number | undefined;
}

/** test/cluster, where build.sh and kwok-stages.yaml live. */
export const HARNESS_DIR = fileURLToPath(new URL('..', import.meta.url));

export const DEFAULT_PORT_BASE = 32400;
export const DEFAULT_NODES = 10;

/**
 * Options from the environment (only entry points call this):
 * AGENT_SANDBOX_CLUSTER_STATE, AGENT_SANDBOX_CLUSTER_CACHE, AGENT_SANDBOX_CLUSTER_BIN,
 * AGENT_SANDBOX_CLUSTER_PORT_BASE, plus XDG_STATE_HOME / XDG_CACHE_HOME.
 */
export function optionsFromEnv(
  env: NodeJS.ProcessEnv,
  overrides: Partial<ClusterOptions> = {},
): ClusterOptions {
  const home = env.HOME ?? homedir();
  const options: ClusterOptions = {
    stateDir:
      env.AGENT_SANDBOX_CLUSTER_STATE ??
      join(env.XDG_STATE_HOME ?? join(home, '.local', 'state'), 'agent-sandbox', 'cluster'),
    cacheDir:
      env.AGENT_SANDBOX_CLUSTER_CACHE ??
      join(env.XDG_CACHE_HOME ?? join(home, '.cache'), 'agent-sandbox', 'cluster'),
    binDir: env.AGENT_SANDBOX_CLUSTER_BIN || undefined,
    portBase: env.AGENT_SANDBOX_CLUSTER_PORT_BASE
      ? Number(env.AGENT_SANDBOX_CLUSTER_PORT_BASE)
      : DEFAULT_PORT_BASE,
    nodes: undefined,
    ...overrides,
  };
  validate(options);
  return options;
}

function validate(options: ClusterOptions): void {
  const { portBase, nodes } = options;
  if (!Number.isInteger(portBase) || portBase < 1024 || portBase > 65535 - 6 - 1) {
    throw new ClusterError(
      'INVALID_ARGUMENT',
      `port base ${portBase} is not usable; set AGENT_SANDBOX_CLUSTER_PORT_BASE to an integer in 1024..65528`,
    );
  }
  if (nodes !== undefined && (!Number.isInteger(nodes) || nodes < 1 || nodes > 5000)) {
    throw new ClusterError('INVALID_ARGUMENT', `--nodes ${nodes}: pass an integer from 1 to 5000`);
  }
}

export function portsFor(portBase: number): Ports {
  const entries = Object.entries(PORT_OFFSETS).map(([name, offset]) => [name, portBase + offset]);
  return Object.fromEntries(entries) as Ports;
}
