// The instance for one run of one container: its environment, image root, cgroup path, CRI log
// path and OCI config (runtime/oci-spec.ts), ready to start. Nothing is started here.
import type { Container, Pod } from '@agent-sandbox/kube-types';
import { join } from 'node:path';
import type { ImageRecord } from '../images/image-store.ts';
import type { PodNetworkStatus } from '../network/pod-network.ts';
import type { ContainerRuntime } from '../runtime/container-runtime.ts';
import { NODE_EXEC_MOUNT } from '../node-exec/exec-socket.ts';
import { buildOciSpec } from '../runtime/oci-spec.ts';
import { resolveEnv } from './container-env.ts';
import { ContainerInstance } from './container-instance.ts';
import { criLogPath } from './log-path.ts';
import type { NodeContext } from './node-context.ts';
import type { PodPhaseTimer } from './pod-phases.ts';
import type { RootfsStage } from './rootfs-stage.ts';
import type { volumeMounts } from './pod-volumes.ts';

export type ContainerMounts = ReturnType<typeof volumeMounts>;

export interface LaunchOptions {
  pod: Pod;
  container: Container;
  image: ImageRecord;
  runtime: ContainerRuntime;
  network: PodNetworkStatus | undefined;
  mounts: ContainerMounts;
  /** The container's restart count: names this run's directory, cgroup and log. */
  restartCount: number;
  podDir: string;
  timer: PodPhaseTimer;
  /** The root staged for this container while the sandbox was set up, if any. */
  staged?: RootfsStage;
  /** InstanceSpec.gated: created before the Pod's volumes are ready, held until start(). */
  gated?: boolean;
}

export interface LaunchResult {
  instance: ContainerInstance;
  logPath: string;
}

/** Where run `n` of container `name` keeps its bundle, root and termination log. */
export function instanceDir(podDir: string, name: string, n: number): string {
  return join(podDir, 'containers', `${name}-${n}`);
}

/**
 * Whether the Pod's exec socket is mounted in (ADR 0037): with a daemon and a runtime that lets
 * it dial the host. Where reaching it opens every host socket in the mounts (runsc), not for a
 * Pod with a hostPath volume, which may hold the host's own sockets (ADR 0040).
 */
export function daemonExecFor(ctx: NodeContext, pod: Pod, runtime: ContainerRuntime): boolean {
  if (!ctx.podDaemon || !runtime.daemonExec) return false;
  return !runtime.daemonExecOpensHostSockets || !(pod.spec?.volumes ?? []).some((v) => v.hostPath);
}

export async function launchContainer(ctx: NodeContext, o: LaunchOptions): Promise<LaunchResult> {
  const { pod, container: c, image, runtime, timer: t } = o;
  const meta = pod.metadata ?? {};
  const uid = meta.uid ?? '';
  const ips = { podIP: o.network?.ips[0] ?? '', hostIP: ctx.nodeIP };
  const env = await t.time('env', () => resolveEnv(pod, c, ctx.objects, ips));
  const imageRootfs = await t.time('image-rootfs', () => ctx.images.store.rootfs(image));
  const n = o.restartCount;
  const cgroupsPath = `/${ctx.cgroupParent}/pod${uid}/${c.name}-${n}`;
  const logPath = criLogPath(
    ctx.logsDir,
    { namespace: meta.namespace ?? '', name: meta.name ?? '', uid },
    c.name,
    n,
  );
  const dir = instanceDir(o.podDir, c.name, n);
  // Not staged (a restart, a later init container): a pooled root if one is ready.
  const pooled = o.staged
    ? undefined
    : ctx.rootPoolFor(pod)?.take({ name: image.name, lower: imageRootfs }, join(dir, 'fs'));
  const nodeExec = daemonExecFor(ctx, pod, runtime)
    ? await ctx.nodeExec.open(uid, o.podDir)
    : undefined;
  const instance = new ContainerInstance({
    runtime,
    dir,
    imageRootfs,
    ...(o.staged ? { staged: o.staged.take(dir, imageRootfs) } : {}),
    ...(pooled ? { staged: Promise.resolve(pooled) } : {}),
    logPath,
    cgroupsPath,
    stdin: c.stdin === true,
    ...(o.gated ? { gated: true } : {}),
    // Only the daemon's container (the first app container) dials the socket.
    ...(nodeExec && runtime.daemonExecOpensHostSockets && c.name === pod.spec?.containers?.[0]?.name
      ? { hostSockets: true }
      : {}),
    timer: t,
    config: (rootfs, terminationLog) =>
      buildOciSpec({
        pod,
        container: c,
        image: image.config,
        rootfs,
        netnsPath: o.network?.netnsPath ?? '',
        cgroupsPath,
        hostname: pod.spec?.hostname ?? meta.name ?? '',
        env,
        mounts: [
          ...o.mounts,
          {
            destination: c.terminationMessagePath ?? '/dev/termination-log',
            source: terminationLog,
            readOnly: false,
          },
        ],
        extraReadOnlyMounts: [
          ...ctx.extraReadOnlyMounts,
          ...(nodeExec ? [{ destination: NODE_EXEC_MOUNT, source: nodeExec }] : []),
        ],
        pidsLimit: runtime.hostPidsLimit(ctx.pidsLimit),
        nodeMemoryBytes: ctx.nodeMemoryBytes,
      }),
  });
  return { instance, logPath };
}
