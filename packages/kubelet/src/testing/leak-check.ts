// After a test that ran containers: nothing of ours may be left — runtime state, mounts under
// the data dir, network namespaces, links, nft tables, cgroups, processes started from the data dir.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface LeakCheckOptions {
  dataDir: string;
  /** Runtime state directories (`--root`) that must be empty. */
  runtimeStateDirs: string[];
  /** netns name prefix of the pod network under test. */
  netnsPrefix: string;
  /** Network links (veths, bridges) of the pod network under test. */
  linkPrefix?: string;
  /** nft tables (NetworkPolicy, masquerade) whose names contain this. */
  nftPrefix?: string;
  /** The agent's cgroupParent. @default 'agent-sandbox' */
  cgroupParent?: string;
}

function list(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function cmdline(pid: string): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return ''; // exited meanwhile
  }
}

function parentPid(pid: string): string | undefined {
  try {
    return /^PPid:\s*(\d+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  } catch {
    return undefined;
  }
}

/** Whether the process or one of its ancestors names the data dir in its command line. */
function descendsFrom(pid: string, dataDir: string): boolean {
  for (let p: string | undefined = pid, depth = 0; p && p !== '0' && depth < 16; depth++) {
    if (cmdline(p).includes(dataDir)) return true;
    p = parentPid(p);
  }
  return false;
}

function cgroupProcs(dir: string): string[] {
  const here = (() => {
    try {
      return readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean);
    } catch {
      return [];
    }
  })();
  const sub = list(dir).filter((e) => !e.includes('.'));
  return [...here, ...sub.flatMap((e) => cgroupProcs(join(dir, e)))];
}

/**
 * A pod cgroup of another node agent on this machine (other suites run at the same time): it
 * has processes and none of them comes from our data dir. An empty one counts as ours.
 */
function foreign(dir: string, o: LeakCheckOptions): boolean {
  const procs = cgroupProcs(dir);
  return procs.length > 0 && !procs.some((pid) => descendsFrom(pid, o.dataDir));
}

/** Human-readable leaks; empty when clean. */
export function findLeaks(o: LeakCheckOptions): string[] {
  const leaks: string[] = [];
  for (const d of o.runtimeStateDirs)
    for (const id of list(d)) leaks.push(`runtime state ${join(d, id)}`);
  const mounts = readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((l) => l.split(' ')[4] ?? '');
  for (const m of mounts) if (m.startsWith(`${o.dataDir}/`)) leaks.push(`mount ${m}`);
  for (const n of list('/run/netns')) if (n.startsWith(o.netnsPrefix)) leaks.push(`netns ${n}`);
  if (o.linkPrefix !== undefined)
    for (const l of list('/sys/class/net')) if (l.startsWith(o.linkPrefix)) leaks.push(`link ${l}`);
  if (o.nftPrefix !== undefined) {
    const r = spawnSync('nft', ['list', 'tables'], { encoding: 'utf8' });
    for (const t of (r.stdout ?? '').split('\n'))
      if (t.includes(o.nftPrefix)) leaks.push(`nft ${t.trim()}`);
  }
  const parent = o.cgroupParent ?? 'agent-sandbox';
  for (const ctrl of list('/sys/fs/cgroup'))
    for (const pod of list(join('/sys/fs/cgroup', ctrl, parent)))
      if (pod.startsWith('pod') && !foreign(join('/sys/fs/cgroup', ctrl, parent, pod), o))
        leaks.push(`cgroup ${ctrl}/${parent}/${pod}`);
  for (const pid of list('/proc')) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    const cmd = cmdline(pid);
    if (cmd.includes(o.dataDir)) leaks.push(`process ${pid}: ${cmd.slice(0, 120)}`);
  }
  return leaks;
}
