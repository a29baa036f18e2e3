// A pod's sandbox before its first container (kubelet-and-oci §1.2): its network namespace, its
// volumes and the files every container mounts (/etc/hosts, resolv.conf, hostname).
import type { Container, Pod } from '@agent-sandbox/kube-types';
import { mkdir } from 'node:fs/promises';
import type { PodNetworkStatus } from '../network/pod-network.ts';
import type { ContainerMounts } from './container-launch.ts';
import type { NodeContext } from './node-context.ts';
import type { PodPhaseTimer } from './pod-phases.ts';
import { writePodFiles } from './pod-files.ts';
import {
  plannedVolumeDirs,
  prepareVolumes,
  volumeMounts,
  type VolumeSource,
} from './pod-volumes.ts';
import { settleAll } from './settle-all.ts';

export interface PodSandbox {
  network: PodNetworkStatus;
  /** The mounts of container `c`: its volume mounts and the pod's files. */
  mountsFor(c: Container): ContainerMounts;
}

export interface PodSandboxOptions {
  pod: Pod;
  podDir: string;
  timer: PodPhaseTimer;
  /**
   * Called once the network and the pod's files are ready and the volumes' directories made,
   * while the volumes are still being filled — only for a pod whose volume directories are known
   * ahead (plannedVolumeDirs): containers may be created then and held until the sandbox is done.
   */
  onMounts?(sandbox: PodSandbox): void;
}

export async function preparePodSandbox(
  ctx: NodeContext,
  o: PodSandboxOptions,
): Promise<PodSandbox> {
  const { pod, timer: t } = o;
  const meta = pod.metadata ?? {};
  const planned = o.onMounts ? plannedVolumeDirs(pod, o.podDir) : undefined;
  // Made before the volumes fill them, so a container created ahead binds these very directories.
  const dirsMade = planned
    ? Promise.all([...planned.values()].map((d) => mkdir(d, { recursive: true }))).then(
        () => true,
        () => false,
      )
    : Promise.resolve(false);
  // The network (then the files that name its addresses) and the volumes (API reads, token
  // requests, files) do not depend on each other: both run at once, and both settle before a
  // failure is reported, so nothing is still being set up when the pod is released.
  const networkAndFiles = async () => {
    const network = await t.time('network', () =>
      ctx.network.setUp({
        namespace: meta.namespace ?? 'default',
        name: meta.name ?? '',
        uid: meta.uid ?? '',
        labels: meta.labels ?? {},
        hostname: pod.spec?.hostname ?? meta.name ?? '',
      }),
    );
    const files = await t.time('pod-files', async () => writePodFiles(o.podDir, pod, network));
    if (planned && (await dirsMade))
      o.onMounts?.({
        network,
        mountsFor: (c) => [...volumeMounts(c.volumeMounts, planned, c.name), ...files],
      });
    return { network, files };
  };
  const [{ network, files }, volumes] = await settleAll([
    networkAndFiles(),
    // Not after dirsMade: the volumes fill their directories in place (made if missing).
    t.time('volumes', () =>
      prepareVolumes(pod, timedReads(ctx.objects, t), {
        podDir: o.podDir,
        claimsDir: ctx.claimsDir,
        allowHostPath: ctx.allowHostPath,
      }),
    ),
  ]);
  return {
    network,
    mountsFor: (c) => [...volumeMounts(c.volumeMounts, volumes, c.name), ...files],
  };
}

/** `src` with its API reads timed as steps of their own (bench/node splits `volumes` by them). */
function timedReads(src: VolumeSource, t: PodPhaseTimer): VolumeSource {
  return {
    configMap: (ns, name) => t.time('configmap-read', () => src.configMap(ns, name)),
    secret: (ns, name) => t.time('secret-read', () => src.secret(ns, name)),
    claimUid: (ns, name) => src.claimUid(ns, name),
    serviceAccountToken: (ns, sa, audiences, seconds) =>
      t.time('token-request', () => src.serviceAccountToken(ns, sa, audiences, seconds)),
  };
}
