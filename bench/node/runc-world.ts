// What runc-path.ts runs runc on, made as the node agent makes it for a bench Pod: the busybox
// test image's root under an overlay, a network namespace, the kube-api-access volume and pod
// files, the in-sandbox daemon's read-only mounts and exec socket directory, a cgroup parent of
// this process's own, and the config.json oci-spec.ts builds from all of it.
import { prepareSandboxd } from '@agent-sandbox/local';
import { ImageStore, loadOciLayout } from '@agent-sandbox/kubelet';
import { buildTestImage } from '@agent-sandbox/kubelet/testing';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  prepareRootfs,
  removeMountedDir,
} from '../../packages/kubelet/src/node/container-rootfs.ts';
import { NODE_EXEC_MOUNT } from '../../packages/kubelet/src/node-exec/exec-socket.ts';
import { buildOciSpec } from '../../packages/kubelet/src/runtime/oci-spec.ts';
import type { Config } from './runc-variants.ts';

export interface RuncWorld {
  /** The agent's config.json for a container running `args`, in cgroup `cgroupsPath`. */
  config(args: readonly string[], cgroupsPath: string): Config;
  /** A cgroupsPath under this run's parent, as the agent names them. */
  cgroupPath(name: string): string;
  /** A new Pod's cgroupsPath (`pod-<n>/main-0`), as each Pod the agent starts has. */
  freshPodCgroup(n: number): string;
  /** Makes cgroupsPath `path` in every hierarchy, as runc would. */
  makeCgroup(path: string): void;
  /** The in-sandbox daemon's argv inside the container, as the agent execs it at Running. */
  daemonArgv: readonly string[];
  close(): Promise<void>;
}

const IMAGE = 'localhost/bench/busybox:v1';
/** This host's (v1 hybrid) hierarchies, which runc joins. */
const HIERARCHIES = readdirSync('/sys/fs/cgroup').filter(
  (c) => !c.includes(',') && existsSync(join('/sys/fs/cgroup', c, 'cgroup.procs')),
);

/** The kube-api-access volume's files and the pod files the agent writes (pod-volumes.ts). */
function podFiles(podDir: string): { volume: string; hosts: string; hostname: string } {
  const volume = join(podDir, 'volumes', 'kube-api-access-bench');
  mkdirSync(volume, { recursive: true });
  for (const f of ['token', 'ca.crt', 'namespace']) writeFileSync(join(volume, f), 'x\n');
  mkdirSync(join(podDir, 'etc'), { recursive: true });
  const hosts = join(podDir, 'etc', 'hosts');
  const hostname = join(podDir, 'etc', 'hostname');
  writeFileSync(hosts, '127.0.0.1 localhost\n');
  writeFileSync(hostname, 'runc-path\n');
  mkdirSync(join(podDir, 'node-exec'), { recursive: true });
  return { volume, hosts, hostname };
}

export async function startRuncWorld(dir: string): Promise<RuncWorld> {
  const store = new ImageStore(join(dir, 'images'));
  const image = await loadOciLayout(
    store,
    (await buildTestImage(join(dir, 'build'))).layoutDir,
    IMAGE,
  );
  const root = await prepareRootfs(await store.rootfs(image), join(dir, 'fs'));
  const netns = `asb-rp-${process.pid}`;
  execFileSync('ip', ['netns', 'add', netns]);
  const injection = await prepareSandboxd(join(dir, 'node'));
  const podDir = join(dir, 'pod');
  const files = podFiles(podDir);
  const terminationLog = join(podDir, 'termination-log');
  writeFileSync(terminationLog, '');
  const parent = `asb-rp-${process.pid}`;
  const container = { name: 'main', image: IMAGE };
  const pod = {
    metadata: { name: 'runc-path', namespace: 'default', uid: 'bench' },
    spec: { containers: [container] },
  };
  return {
    daemonArgv: injection.daemon.argv(pod, container) ?? [],
    cgroupPath: (name) => `/${parent}/podbench/${name}`,
    freshPodCgroup: (n) => `/${parent}/pod-${n}/main-0`,
    makeCgroup: (path) => {
      for (const c of HIERARCHIES) mkdirSync(join('/sys/fs/cgroup', c, path), { recursive: true });
    },
    config: (args, cgroupsPath) =>
      buildOciSpec({
        pod,
        container: { name: 'main', image: IMAGE, command: [...args] },
        image: image.config,
        rootfs: root.path,
        netnsPath: `/run/netns/${netns}`,
        cgroupsPath,
        hostname: 'runc-path',
        env: [],
        mounts: [
          {
            destination: '/var/run/secrets/kubernetes.io/serviceaccount',
            source: files.volume,
            readOnly: true,
          },
          { destination: '/etc/hosts', source: files.hosts, readOnly: false },
          { destination: '/etc/hostname', source: files.hostname, readOnly: false },
          { destination: '/dev/termination-log', source: terminationLog, readOnly: false },
        ],
        extraReadOnlyMounts: [
          ...injection.mounts,
          { destination: NODE_EXEC_MOUNT, source: join(podDir, 'node-exec') },
        ],
        pidsLimit: 4096,
      }),
    close: async () => {
      execFileSync('ip', ['netns', 'delete', netns]);
      await removeMountedDir(join(dir, 'fs'));
      for (const c of HIERARCHIES) {
        const top = join('/sys/fs/cgroup', c, parent);
        const pods = existsSync(top) ? readdirSync(top).filter((d) => d.startsWith('pod')) : [];
        for (const p of [...pods.flatMap((d) => [`${d}/main-0`, d]), ''])
          try {
            rmdirSync(join(top, p));
          } catch {
            // runc removed it, or this hierarchy never had it
          }
      }
    },
  };
}
