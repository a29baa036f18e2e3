// hostPath volumes (kubelet-and-oci §6.3): refused unless the node was started with them allowed
// (`up --allow-host-path`), because a host directory in a sandbox breaks its isolation. Allowed,
// the path must be absolute and match `type` as kube checks it (DirectoryOrCreate and
// FileOrCreate create what is missing). Pod Security baseline refuses hostPath at admission too.
import type { Volume } from '@agent-sandbox/kube-types';
import { mkdir, open, stat } from 'node:fs/promises';
import { dirname, isAbsolute } from 'node:path';
import { KubeletError } from '../errors.ts';

export const HOST_PATH_REFUSED =
  'hostPath volumes are refused on this node: restart it with `agent-sandbox up --allow-host-path` to allow them ' +
  '(the namespace must also admit them: Pod Security baseline and restricted refuse hostPath, so label it ' +
  'pod-security.kubernetes.io/enforce=privileged), or use emptyDir or a persistentVolumeClaim';

const KINDS: Record<string, (s: Awaited<ReturnType<typeof stat>>) => boolean> = {
  Directory: (s) => s.isDirectory(),
  DirectoryOrCreate: (s) => s.isDirectory(),
  File: (s) => s.isFile(),
  FileOrCreate: (s) => s.isFile(),
  Socket: (s) => s.isSocket(),
  CharDevice: (s) => s.isCharacterDevice(),
  BlockDevice: (s) => s.isBlockDevice(),
};

function fail(v: Volume, why: string): KubeletError {
  return new KubeletError('InvalidArgument', `volume "${v.name}": ${why}`);
}

/** The host path to bind for `v`, created when its type says so; throws naming the problem. */
export async function hostPathSource(v: Volume, allowed: boolean): Promise<string> {
  if (!allowed) throw fail(v, HOST_PATH_REFUSED);
  const path = v.hostPath?.path ?? '';
  const type = v.hostPath?.type ?? '';
  if (!isAbsolute(path)) throw fail(v, `hostPath.path must be an absolute path; got "${path}"`);
  if (type === '') return path; // kube: no check before the bind
  const check = KINDS[type];
  if (!check)
    throw fail(v, `hostPath.type "${type}" is not one of "", ${Object.keys(KINDS).join(', ')}`);
  const found = await stat(path).catch(() => undefined);
  if (!found && type === 'DirectoryOrCreate') await mkdir(path, { recursive: true, mode: 0o755 });
  else if (!found && type === 'FileOrCreate') {
    await mkdir(dirname(path), { recursive: true, mode: 0o755 });
    await (await open(path, 'a', 0o644)).close();
  } else if (!found) throw fail(v, `hostPath.path ${path} does not exist (hostPath.type ${type})`);
  else if (!check(found)) throw fail(v, `hostPath.path ${path} is not a ${type}`);
  return path;
}
