import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cgroupDirs, cgroupFiles, cpuWeight, hostCgroupMode, oomKills } from './cgroup-limits.ts';
import { gvisorHostPids } from './runc-runtime.ts';

const resources = {
  memory: { limit: 33_554_432, swap: 33_554_432 },
  cpu: { shares: 512, quota: 50_000, period: 100_000 },
  pids: { limit: 64 },
};

describe('cgroupFiles', () => {
  it('writes the v1 files of each controller (kubelet-and-oci §7.2)', () => {
    expect(cgroupFiles(resources, 'v1')).toEqual([
      { controller: 'memory', file: 'memory.limit_in_bytes', value: '33554432' },
      { controller: 'pids', file: 'pids.max', value: '64' },
      { controller: 'cpu', file: 'cpu.shares', value: '512' },
      { controller: 'cpu', file: 'cpu.cfs_period_us', value: '100000' },
      { controller: 'cpu', file: 'cpu.cfs_quota_us', value: '50000' },
    ]);
  });

  it('writes the v2 files with no swap and group OOM kills', () => {
    expect(cgroupFiles(resources, 'v2')).toEqual([
      { controller: '', file: 'memory.max', value: '33554432' },
      { controller: '', file: 'memory.swap.max', value: '0' },
      { controller: '', file: 'memory.oom.group', value: '1' },
      { controller: '', file: 'pids.max', value: '64' },
      { controller: '', file: 'cpu.weight', value: '59' },
      { controller: '', file: 'cpu.max', value: '50000 100000' },
    ]);
    expect(cgroupFiles({ pids: { limit: -1 } }, 'v2')).toEqual([
      { controller: '', file: 'pids.max', value: 'max' },
    ]);
    expect(cgroupFiles({}, 'v1')).toEqual([]);
  });

  it('converts shares to weight as current runc does', () => {
    expect([cpuWeight(2), cpuWeight(1024), cpuWeight(262_144)]).toEqual([1, 100, 10_000]);
  });
});

describe('host cgroup layout', () => {
  it('tells v2 from v1 by cgroup.controllers and lists one directory per v1 controller', () => {
    const root = mkdtempSync(join(tmpdir(), 'cg-'));
    for (const c of ['memory', 'pids', 'cpu']) mkdirSync(join(root, c));
    expect(hostCgroupMode(root)).toBe('v1');
    expect(cgroupDirs('/p/pod1/c-0', 'v1', root)).toEqual([
      join(root, 'memory/p/pod1/c-0'),
      join(root, 'pids/p/pod1/c-0'),
      join(root, 'cpu/p/pod1/c-0'),
    ]);
    writeFileSync(join(root, 'cgroup.controllers'), 'memory pids');
    expect(hostCgroupMode(root)).toBe('v2');
    expect(cgroupDirs('/p/pod1/c-0', 'v2', root)).toEqual([join(root, 'p/pod1/c-0')]);
  });

  it('reads OOM kills from memory.oom_control (v1) or memory.events (v2)', async () => {
    const root = mkdtempSync(join(tmpdir(), 'cg-'));
    mkdirSync(join(root, 'memory/c'), { recursive: true });
    writeFileSync(
      join(root, 'memory/c/memory.oom_control'),
      'oom_kill_disable 0\nunder_oom 0\noom_kill 2\n',
    );
    expect(await oomKills('/c', root)).toBe(2);
    mkdirSync(join(root, 'd'));
    writeFileSync(join(root, 'd/memory.events'), 'low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n');
    expect(await oomKills('/d', root)).toBe(1);
    expect(await oomKills('/missing', root)).toBe(0);
  });
});

describe('gvisorHostPids', () => {
  it('leaves room for the sentry and its ptrace stubs', () => {
    expect([gvisorHostPids(64), gvisorHostPids(-1)]).toEqual([640, -1]);
  });
});
