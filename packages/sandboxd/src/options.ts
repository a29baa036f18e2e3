// Daemon options with their defaults in one place (STYLE house style 4).
import {
  LEGACY_DEFAULT_EXEC_TIMEOUT_SECONDS,
  LEGACY_PORT,
  SANDBOXD_GRPC_PORT,
  SANDBOXD_METADATA_ENV_PREFIX,
  SANDBOXD_REST_PORT,
  SANDBOXD_ROOT_DIR,
} from '@agent-sandbox/protocol';
import { InvalidOptionError, type LogFn } from './errors.ts';

export interface SandboxdOptions {
  /** Confinement root for files and working directories; created if missing. @default /workspace */
  rootDir?: string;
  /** @default 0.0.0.0 */
  listenHost?: string;
  /** REST port (/v1/...); 0 picks a free port, -1 disables. @default 8080 */
  restPort?: number;
  /** gRPC port (process.v1, watcher.v1); 0 picks a free port, -1 disables. @default 9090 */
  grpcPort?: number;
  /** Legacy runtime port; 0 picks a free port, -1 disables. @default 8888 */
  legacyPort?: number;
  /** The environment commands inherit and /v1/metadata filters. @default {} */
  env?: NodeJS.ProcessEnv;
  /** @default SANDBOX_ */
  metadataEnvPrefix?: string;
  /** Largest accepted upload in bytes; 0 = unlimited. @default 4 GiB */
  maxUploadBytes?: number;
  /** Commands running at once across all APIs; 0 = unlimited. @default 256 */
  maxProcesses?: number;
  /** Legacy /execute time limit when the request has none. @default 300 */
  execTimeoutSeconds?: number;
  /** Bytes of output kept per stream of each Start process for re-attach. @default 8 MiB */
  retainOutputBytes?: number;
  /** Ended Start processes kept for Inspect/Attach. @default 128 */
  retainProcesses?: number;
  /** Read buffer for Start's output events. @default 4096 */
  streamChunkSize?: number;
  /** PTY helper (util-linux `script`) and `stty` used for resizes. @default 'script', 'stty' */
  ptyCommand?: string[];
  sttyCommand?: string[];
  /**
   * The node agent's exec socket to dial out to (ADR 0037), an absolute path; '' = off.
   * @default ''
   */
  nodeExecSocket?: string;
  /** A listener whose port is taken is left off (reported in `skipped`) instead of failing. @default false */
  skipBusyPorts?: boolean;
  /** Structured log lines (errors a boundary answered with 5xx, refused gRPC calls). @default none */
  log?: LogFn;
  /**
   * `debug` adds lines marked `level: 'debug'` to `log`: each gRPC Start's steps with their
   * times. @default 'info'
   */
  logLevel?: 'info' | 'debug';
  now?: () => number;
}

export type ResolvedOptions = Required<SandboxdOptions>;

/** The ports a daemon started without port options listens on: gRPC, REST, legacy. */
export const SANDBOXD_DEFAULT_PORTS: readonly number[] = [
  SANDBOXD_GRPC_PORT,
  SANDBOXD_REST_PORT,
  LEGACY_PORT,
];

function port(name: string, value: number): number {
  if (!Number.isInteger(value) || value < -1 || value > 65535) {
    throw new InvalidOptionError(
      `${name} ${value} must be an integer port in 1-65535 (0 = any free port, -1 = off)`,
    );
  }
  return value;
}

export function withDefaults(o: SandboxdOptions): ResolvedOptions {
  const r: ResolvedOptions = {
    rootDir: o.rootDir ?? SANDBOXD_ROOT_DIR,
    listenHost: o.listenHost ?? '0.0.0.0',
    restPort: port('rest port', o.restPort ?? SANDBOXD_REST_PORT),
    grpcPort: port('grpc port', o.grpcPort ?? SANDBOXD_GRPC_PORT),
    legacyPort: port('legacy port', o.legacyPort ?? LEGACY_PORT),
    env: o.env ?? {},
    metadataEnvPrefix: o.metadataEnvPrefix ?? SANDBOXD_METADATA_ENV_PREFIX,
    maxUploadBytes: o.maxUploadBytes ?? 4 * 1024 ** 3,
    maxProcesses: o.maxProcesses ?? 256,
    execTimeoutSeconds: o.execTimeoutSeconds ?? LEGACY_DEFAULT_EXEC_TIMEOUT_SECONDS,
    retainOutputBytes: o.retainOutputBytes ?? 8 * 1024 * 1024,
    retainProcesses: o.retainProcesses ?? 128,
    streamChunkSize: o.streamChunkSize ?? 4096,
    ptyCommand: o.ptyCommand ?? ['script'],
    sttyCommand: o.sttyCommand ?? ['stty'],
    skipBusyPorts: o.skipBusyPorts ?? false,
    nodeExecSocket: o.nodeExecSocket ?? '',
    log: o.log ?? (() => undefined),
    logLevel: o.logLevel ?? 'info',
    now: o.now ?? Date.now,
  };
  if (r.nodeExecSocket !== '' && !r.nodeExecSocket.startsWith('/'))
    throw new InvalidOptionError(
      `node exec socket ${r.nodeExecSocket} must be an absolute path (--node-exec-socket)`,
    );
  if (r.logLevel !== 'info' && r.logLevel !== 'debug')
    throw new InvalidOptionError(
      `log level ${String(r.logLevel)} must be info or debug (--log-level)`,
    );
  if (r.rootDir === '') throw new InvalidOptionError('root dir must not be empty (--root-dir)');
  if (r.restPort > 0 && r.restPort === r.grpcPort) {
    throw new InvalidOptionError(
      `grpc port ${r.grpcPort} must differ from the rest port (--grpc-port, --rest-port)`,
    );
  }
  for (const [name, v] of [
    ['max upload bytes', r.maxUploadBytes],
    ['max processes', r.maxProcesses],
  ] as const) {
    if (!Number.isInteger(v) || v < 0)
      throw new InvalidOptionError(`${name} ${v} must be a whole number ≥ 0`);
  }
  if (!(r.execTimeoutSeconds > 0) || !Number.isFinite(r.execTimeoutSeconds)) {
    throw new InvalidOptionError(
      `exec timeout ${r.execTimeoutSeconds} must be a positive number of seconds`,
    );
  }
  return r;
}

/** /v1/metadata: names with the prefix, minus any that look like credentials (§4.3). */
export function metadataEnv(
  env: NodeJS.ProcessEnv,
  prefix: string,
  markers: readonly string[],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined || !k.startsWith(prefix)) continue;
    if (markers.some((m) => k.toUpperCase().includes(m))) continue;
    out[k] = v;
  }
  return out;
}
