// The in-sandbox daemon in every Pod of the embedded mode (issue 12): sandboxd is bundled into
// one file under the node's data dir, the host's node (with its libraries and loader) and the
// PTY helpers are mounted read-only under /.sbx in every container, and the node agent starts the
// daemon in each Pod's first app container (kubelet's PodDaemon), so busybox and distroless
// images serve the legacy runtime (8888), REST (8080) and gRPC (9090) with no change.
// A Pod opts out with the annotation `agents.x-k8s.io/sandboxd: disabled` (set it in the
// SandboxTemplate's podTemplate metadata).
import type { Container, Pod } from '@agent-sandbox/kube-types';
import type { PodDaemon } from '@agent-sandbox/kubelet';
import {
  SANDBOXD_DEFAULT_PORTS,
  buildCodeCachedBundle,
  bundleSandboxd,
  describeHostBinary,
  sandboxdLaunch,
  stageLaunchDir,
  type HostBinary,
} from '@agent-sandbox/sandboxd';
import { join } from 'node:path';

export const SANDBOXD_ANNOTATION = 'agents.x-k8s.io/sandboxd';
/** The confinement root when the container names no workingDir (sandboxd's default). */
export const DEFAULT_DAEMON_ROOT = '/workspace';

export interface SandboxdInjection {
  mounts: { destination: string; source: string }[];
  daemon: PodDaemon;
  /** Why the daemon runs from the plain bundle, not its code cache (ADR 0045); the caller logs it. */
  codeCacheOff?: string;
}

/** Pure: the daemon's argv for one container, or undefined when the Pod opts out. */
export function daemonArgv(
  launchArgv: readonly string[],
  pod: Pod,
  container: Container,
  opts: { nodeExecSocket?: string } = {},
): string[] | undefined {
  if (pod.metadata?.annotations?.[SANDBOXD_ANNOTATION] === 'disabled') return undefined;
  // The workload's own use of 8080/9090/8888 wins over the daemon's listener on that port. The
  // node keeps the daemon's stderr in its log: each Start's timeline is there when one stalls.
  return [
    ...launchArgv,
    '--root-dir',
    container.workingDir || DEFAULT_DAEMON_ROOT,
    '--skip-busy-ports',
    '--log-level',
    'debug',
    ...(opts.nodeExecSocket ? ['--node-exec-socket', opts.nodeExecSocket] : []),
  ];
}

const optional = (path: string): Promise<HostBinary | undefined> =>
  describeHostBinary(path).catch(() => undefined);

/**
 * Bundles the daemon into `dir` (with its code cache where it can be made, else the plain bundle
 * and `codeCacheOff`) and describes the host files it needs. Rejects (the caller runs without
 * the daemon and says why) when esbuild or `ldd` is missing.
 */
export async function prepareSandboxd(dir: string): Promise<SandboxdInjection> {
  const bundlePath = join(dir, 'sandboxd.mjs');
  await bundleSandboxd(bundlePath);
  // The Pods run this process's node, so it makes the cache (V8 takes only its own).
  let codeCacheOff: string | undefined;
  const codeCache = await buildCodeCachedBundle(join(dir, 'code-cache'), process.execPath).catch(
    (err: unknown) => {
      codeCacheOff = err instanceof Error ? err.message : String(err);
      return undefined;
    },
  );
  const script = await optional('/usr/bin/script');
  const stty = await optional('/usr/bin/stty');
  const launch = sandboxdLaunch({
    node: await describeHostBinary(process.execPath),
    bundlePath,
    ...(codeCache ? { codeCache } : {}),
    ...(script ? { script } : {}),
    ...(stty ? { stty } : {}),
  });
  const staged = stageLaunchDir(launch, dir);
  return {
    mounts: [{ destination: staged.containerPath, source: staged.hostPath }],
    daemon: {
      argv: (pod, container, opts) => daemonArgv(launch.argv, pod, container, opts),
      // Pod Ready waits for all three (the launch sets no port flags): the SDK's first call
      // (gRPC or REST) or the upstream SDK's (legacy) must find the daemon listening.
      readyPorts: () => SANDBOXD_DEFAULT_PORTS,
    },
    ...(codeCacheOff !== undefined ? { codeCacheOff } : {}),
  };
}
