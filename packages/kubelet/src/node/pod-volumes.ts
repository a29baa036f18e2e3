// A pod's volumes as host directories the bundle binds (kubelet-and-oci §6.3): emptyDir under
// the pod directory, configMap/secret/projected written as files, PVCs as a directory per claim
// that outlives the pod, hostPath only when the node allows it.
import type { Pod, Volume, VolumeMount } from '@agent-sandbox/kube-types';
import { chmodSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { chmod, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { KubeletError } from '../errors.ts';
import { hostPathSource } from './host-path.ts';
import type { BundleMount } from '../runtime/oci-spec.ts';
import type { ObjectSource } from './container-env.ts';

export interface VolumeSource extends ObjectSource {
  /** The uid of a bound (or bindable) claim; undefined when the claim does not exist. */
  claimUid(namespace: string, name: string): Promise<string | undefined>;
  serviceAccountToken(
    namespace: string,
    serviceAccount: string,
    audiences: string[] | undefined,
    expirationSeconds: number,
  ): Promise<string>;
}

export interface VolumeOptions {
  podDir: string;
  /** Parent of PVC directories (`<claim uid>/`), kept across pod deletion. */
  claimsDir: string;
  allowHostPath: boolean;
}

function volumeError(v: Volume, why: string): KubeletError {
  return new KubeletError('InvalidArgument', `volume "${v.name}": ${why}`);
}

type Items = { key: string; path: string; mode?: number }[] | undefined;
type VolumeFile = { data: string | Buffer; mode: number };

/** The files `items` (else every key) of `entries` make, by path relative to the volume. */
function volumeFiles(
  entries: Record<string, string | Buffer>,
  items: Items,
  mode: number,
): Map<string, VolumeFile> {
  const out = new Map<string, VolumeFile>();
  const chosen: Items = items ?? Object.keys(entries).map((key) => ({ key, path: key }));
  for (const it of chosen ?? []) {
    const data = entries[it.key];
    if (data !== undefined) out.set(it.path, { data, mode: it.mode ?? mode });
  }
  return out;
}

/**
 * Replaces `dir` with `files`. Synchronous on purpose: a few small files (a token, ca.crt, the
 * namespace) cost microseconds to write, while each promise-based step (rm, mkdir, write, chmod,
 * one after another) is a libuv threadpool job whose answer queues behind the Pod start's other
 * file work and the shared event loop: 20-40 ms between the API reads' end and the volumes'
 * at load 15 (bench:node --trace).
 */
function replaceWithFiles(dir: string, files: ReadonlyMap<string, VolumeFile>): void {
  // Emptied, not removed: a container created ahead of the volumes (start-gate.ts, ADR 0042)
  // already binds this directory, and a new one in its place would not be what it sees.
  mkdirSync(dir, { recursive: true });
  for (const e of readdirSync(dir)) rmSync(join(dir, e), { recursive: true, force: true });
  for (const [path, f] of files) {
    const p = join(dir, path);
    if (dirname(p) !== dir) mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, f.data);
    chmodSync(p, f.mode); // writeFile's mode is masked by the umask
  }
}

function writeItems(
  dir: string,
  entries: Record<string, string | Buffer>,
  items: Items,
  mode: number,
): void {
  replaceWithFiles(dir, volumeFiles(entries, items, mode));
}

const b64 = (data: Record<string, string> | undefined) =>
  Object.fromEntries(Object.entries(data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')]));

type Projection = NonNullable<NonNullable<Volume['projected']>['sources']>[number];

/** The files one projected source contributes; undefined for a source kind we do not know. */
async function projectedFiles(
  pod: Pod,
  v: Volume,
  p: Projection,
  src: VolumeSource,
): Promise<{ entries: Record<string, string | Buffer>; items: Items } | undefined> {
  const ns = pod.metadata?.namespace ?? 'default';
  if (p.serviceAccountToken) {
    const t = p.serviceAccountToken;
    const token = await src.serviceAccountToken(
      ns,
      pod.spec?.serviceAccountName ?? 'default',
      t.audience ? [t.audience] : undefined,
      t.expirationSeconds ?? 3600,
    );
    return { entries: { token }, items: [{ key: 'token', path: t.path }] };
  }
  if (p.configMap) {
    const cm = await src.configMap(ns, p.configMap.name ?? '');
    if (!cm && !p.configMap.optional)
      throw volumeError(v, `configmap "${p.configMap.name}" not found`);
    return { entries: cm?.data ?? {}, items: p.configMap.items };
  }
  if (p.secret) {
    const s = await src.secret(ns, p.secret.name ?? '');
    if (!s && !p.secret.optional) throw volumeError(v, `secret "${p.secret.name}" not found`);
    return { entries: b64(s?.data), items: p.secret.items };
  }
  if (p.downwardAPI) {
    const files: Record<string, string> = {};
    for (const f of p.downwardAPI.items ?? []) {
      const path = f.fieldRef?.fieldPath;
      files[f.path] =
        path === 'metadata.namespace'
          ? ns
          : path === 'metadata.name'
            ? (pod.metadata?.name ?? '')
            : path === 'metadata.uid'
              ? (pod.metadata?.uid ?? '')
              : '';
    }
    return { entries: files, items: undefined };
  }
  return undefined;
}

/** The kinds whose host directory is `<podDir>/volumes/<name>`, known before any API read. */
function inPodDir(v: Volume): boolean {
  return !!(v.emptyDir || v.configMap || v.secret || v.projected);
}

/**
 * Volume name → host directory, before the volumes are made, when every volume of the pod lives
 * in the pod's directory (no claim to look up, no hostPath); otherwise undefined. Pure.
 */
export function plannedVolumeDirs(pod: Pod, podDir: string): Map<string, string> | undefined {
  const volumes = pod.spec?.volumes ?? [];
  if (!volumes.every(inPodDir)) return undefined;
  return new Map(volumes.map((v) => [v.name, join(podDir, 'volumes', v.name)]));
}

/** Prepares every volume; returns volume name → host path. */
export async function prepareVolumes(
  pod: Pod,
  src: VolumeSource,
  o: VolumeOptions,
): Promise<Map<string, string>> {
  const ns = pod.metadata?.namespace ?? 'default';
  const out = new Map<string, string>();
  for (const v of pod.spec?.volumes ?? []) {
    const dir = join(o.podDir, 'volumes', v.name);
    if (v.emptyDir) {
      await mkdir(dir, { recursive: true });
      await chmod(dir, 0o777);
    } else if (v.configMap) {
      const cm = await src.configMap(ns, v.configMap.name ?? '');
      if (!cm && !v.configMap.optional)
        throw volumeError(v, `configmap "${v.configMap.name}" not found`);
      writeItems(
        dir,
        { ...cm?.data, ...b64(cm?.binaryData) },
        v.configMap.items,
        v.configMap.defaultMode ?? 0o644,
      );
    } else if (v.secret) {
      const s = await src.secret(ns, v.secret.secretName ?? '');
      if (!s && !v.secret.optional)
        throw volumeError(v, `secret "${v.secret.secretName}" not found`);
      writeItems(dir, b64(s?.data), v.secret.items, v.secret.defaultMode ?? 0o644);
    } else if (v.projected) {
      // The sources' API reads (a TokenRequest, ConfigMap and Secret GETs) go out at once: they
      // were most of a cold Pod's volume time, one round trip after another.
      const files = await Promise.all(
        (v.projected.sources ?? []).map((p) => projectedFiles(pod, v, p, src)),
      );
      const mode = v.projected.defaultMode ?? 0o644;
      // A path two sources name holds the later one's file, as when they were written in turn.
      const merged = new Map<string, VolumeFile>();
      for (const f of files)
        if (f)
          for (const [path, file] of volumeFiles(f.entries, f.items, mode)) merged.set(path, file);
      replaceWithFiles(dir, merged);
    } else if (v.persistentVolumeClaim) {
      const uid = await src.claimUid(ns, v.persistentVolumeClaim.claimName);
      if (!uid)
        throw volumeError(
          v,
          `persistentvolumeclaim "${v.persistentVolumeClaim.claimName}" not found`,
        );
      const claimDir = join(o.claimsDir, uid);
      await mkdir(claimDir, { recursive: true });
      out.set(v.name, claimDir);
      continue;
    } else if (v.hostPath) {
      out.set(v.name, await hostPathSource(v, o.allowHostPath));
      continue;
    } else {
      throw volumeError(
        v,
        'this volume type is not supported by the local node agent (use emptyDir, configMap, secret, projected, persistentVolumeClaim)',
      );
    }
    out.set(v.name, dir);
  }
  return out;
}

/** The container's volumeMounts as bundle mounts. */
export function volumeMounts(
  mounts: readonly VolumeMount[] | undefined,
  volumes: ReadonlyMap<string, string>,
  container: string,
): BundleMount[] {
  return (mounts ?? []).map((m) => {
    const source = volumes.get(m.name);
    if (source === undefined)
      throw new KubeletError(
        'InvalidArgument',
        `container ${container}: volumeMount "${m.name}" names no volume of the pod`,
      );
    return {
      destination: m.mountPath,
      source: m.subPath ? join(source, m.subPath) : source,
      readOnly: m.readOnly === true,
    };
  });
}
