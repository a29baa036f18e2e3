// A container's cgroup when the agent, not the OCI runtime, writes it (gVisor with a pre-created
// cgroup, bubblewrap which has none): the limits from config.json's `linux.resources` turned into
// cgroup files (pure, kubelet-and-oci §7.2) and the few writes and reads around them.
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RuntimeError } from '../errors.ts';

export const CGROUP_ROOT = '/sys/fs/cgroup';

/** The subset of OCI `linux.resources` the node agent sets (oci-spec.ts `resources()`). */
export interface OciResources {
  memory?: { limit?: number; swap?: number };
  cpu?: { shares?: number; quota?: number; period?: number };
  pids?: { limit?: number };
}

export interface CgroupFile {
  /** v1 controller directory (`memory`, `pids`, `cpu`), or '' for the v2 unified tree. */
  controller: string;
  file: string;
  value: string;
}

export type CgroupMode = 'v1' | 'v2';

/** v2 when /sys/fs/cgroup itself is cgroup2 (it has cgroup.controllers), else v1 (hybrid too). */
export function hostCgroupMode(root = CGROUP_ROOT): CgroupMode {
  return existsSync(join(root, 'cgroup.controllers')) ? 'v2' : 'v1';
}

/** The files to write, in order, for `resources` in `mode`. */
export function cgroupFiles(resources: OciResources, mode: CgroupMode): CgroupFile[] {
  const out: CgroupFile[] = [];
  const m = resources.memory?.limit;
  const pids = resources.pids?.limit;
  const { shares, quota, period } = resources.cpu ?? {};
  if (mode === 'v1') {
    if (m !== undefined)
      out.push({ controller: 'memory', file: 'memory.limit_in_bytes', value: `${m}` });
    if (pids !== undefined)
      out.push({ controller: 'pids', file: 'pids.max', value: pids < 0 ? 'max' : `${pids}` });
    if (shares !== undefined)
      out.push({ controller: 'cpu', file: 'cpu.shares', value: `${shares}` });
    if (quota !== undefined) {
      out.push({ controller: 'cpu', file: 'cpu.cfs_period_us', value: `${period ?? 100_000}` });
      out.push({ controller: 'cpu', file: 'cpu.cfs_quota_us', value: `${quota}` });
    }
    return out;
  }
  if (m !== undefined) {
    out.push({ controller: '', file: 'memory.max', value: `${m}` });
    out.push({ controller: '', file: 'memory.swap.max', value: '0' });
    out.push({ controller: '', file: 'memory.oom.group', value: '1' });
  }
  if (pids !== undefined)
    out.push({ controller: '', file: 'pids.max', value: pids < 0 ? 'max' : `${pids}` });
  if (shares !== undefined)
    out.push({ controller: '', file: 'cpu.weight', value: `${cpuWeight(shares)}` });
  if (quota !== undefined)
    out.push({ controller: '', file: 'cpu.max', value: `${quota} ${period ?? 100_000}` });
  return out;
}

/** cpu.shares → cpu.weight, current runc's log-quadratic fit (§7.2). */
export function cpuWeight(shares: number): number {
  const l = Math.log2(Math.min(262_144, Math.max(2, shares)));
  const w = Math.ceil(10 ** ((l * l + 125 * l) / 612 - 7 / 34));
  return Math.min(10_000, Math.max(1, w));
}

/** The v1 hierarchies a cgroup is made in: the limited ones, plus freezer for whole-group kills. */
const V1_CONTROLLERS = ['memory', 'pids', 'cpu', 'freezer'];

/** Every directory of the cgroup at `path` (e.g. `/agent-sandbox/pod<uid>/c-0`) in `mode`. */
export function cgroupDirs(path: string, mode: CgroupMode, root = CGROUP_ROOT): string[] {
  if (mode === 'v2') return [join(root, path)];
  return V1_CONTROLLERS.filter((c) => existsSync(join(root, c))).map((c) => join(root, c, path));
}

/** Creates the cgroup and writes its limits; a write the kernel refuses is an error naming it. */
export async function createCgroup(
  path: string,
  resources: OciResources,
  mode: CgroupMode = hostCgroupMode(),
  root = CGROUP_ROOT,
): Promise<string[]> {
  const dirs = cgroupDirs(path, mode, root);
  if (mode === 'v2') await enableV2Controllers(path, root);
  for (const d of dirs) await mkdir(d, { recursive: true });
  for (const f of cgroupFiles(resources, mode)) {
    const file = join(root, f.controller, path, f.file);
    if (f.file === 'memory.swap.max' && !existsSync(file)) continue; // no swap accounting
    await writeFile(file, f.value).catch((e: unknown) => {
      throw new RuntimeError(
        'Runtime',
        `cannot set ${file} to ${f.value}: ${e instanceof Error ? e.message : String(e)}`,
        { cause: e },
      );
    });
  }
  return dirs;
}

/** v2: controllers must be enabled top-down before a child can be limited (§7.5). */
async function enableV2Controllers(path: string, root: string): Promise<void> {
  const parts = path.split('/').filter((p) => p !== '');
  let dir = root;
  for (const p of parts.slice(0, -1)) {
    dir = join(dir, p);
    await mkdir(dir, { recursive: true });
  }
  dir = root;
  for (const p of ['', ...parts.slice(0, -1)]) {
    dir = join(dir, p);
    await writeFile(join(dir, 'cgroup.subtree_control'), '+memory +pids +cpu').catch(
      () => undefined, // a controller the host lacks; the limit write then names the problem
    );
  }
}

/** The shell line that moves the shell itself into every directory, before it execs the workload. */
export function joinCgroupScript(dirs: readonly string[]): string {
  return dirs.map((d) => `echo $$ > '${d}/cgroup.procs'`).join(' && ');
}

/** The number of OOM kills in the cgroup (v1 memory.oom_control, v2 memory.events); 0 if unknown. */
export async function oomKills(path: string, root = CGROUP_ROOT): Promise<number> {
  const v1 = join(root, 'memory', path, 'memory.oom_control');
  const file = existsSync(v1) ? v1 : join(root, path, 'memory.events');
  const text = await readFile(file, 'utf8').catch(() => '');
  const m = /^oom_kill (\d+)$/m.exec(text);
  return m ? Number(m[1]) : 0;
}
