// Removing a node agent's cgroups, in every v1 hierarchy and the unified one. The kernel can
// refuse rmdir with EBUSY for a moment after a cgroup's last task exited (a v1 cgroup goes
// offline asynchronously; a killed container's tasks take a while to exit on a loaded machine),
// so, as runc's RemovePaths does, what was refused is tried again a few times with growing waits
// rather than left behind.
import { readdir, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const CGROUP_CONTROLLERS = [
  'memory',
  'pids',
  'cpu',
  'cpuacct',
  'cpu,cpuacct',
  'blkio',
  'devices',
  'freezer',
  'cpuset',
  'hugetlb',
  'net_cls',
  'perf_event',
  'systemd',
  'unified',
  '',
];

export interface CgroupRemovalOptions {
  /** Passes over what is left. @default 5 */
  attempts?: number;
  /** The wait after the first refused pass, doubling after each. @default 10 */
  firstDelayMs?: number;
}

/**
 * rmdir of our cgroups (deepest first) in every hierarchy; `sub` narrows to one pod. Resolves
 * when they are gone or the attempts ran out (what is left then is a leak check's to report).
 */
export async function removeCgroups(
  parent: string,
  sub: string,
  o: CgroupRemovalOptions = {},
): Promise<void> {
  let left: string[] = [];
  for (const ctrl of CGROUP_CONTROLLERS)
    left.push(...(await cgroupDirs(join('/sys/fs/cgroup', ctrl, parent, sub))));
  const attempts = o.attempts ?? 5;
  for (let pass = 1, delay = o.firstDelayMs ?? 10; left.length > 0; pass++, delay *= 2) {
    left = await removeDeepestFirst(left);
    if (left.length === 0 || pass >= attempts) return;
    await sleep(delay);
  }
}

/** The dirs rmdir refused as busy (a parent of a refused child is refused too). */
async function removeDeepestFirst(dirs: readonly string[]): Promise<string[]> {
  const busy: string[] = [];
  for (const d of [...dirs].sort((a, b) => b.length - a.length))
    await rmdir(d).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'EBUSY' || e.code === 'ENOTEMPTY') busy.push(d);
    });
  return busy;
}

async function cgroupDirs(base: string): Promise<string[]> {
  const entries = await readdir(base, { withFileTypes: true }).catch(() => undefined);
  if (!entries) return [];
  const out = [base];
  for (const e of entries) if (e.isDirectory()) out.push(...(await cgroupDirs(join(base, e.name))));
  return out;
}
