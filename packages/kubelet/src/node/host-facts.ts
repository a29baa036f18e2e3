// What the Node object says about this machine, read from the host (not from the environment).
import { readFileSync } from 'node:fs';
import { cpus, networkInterfaces, release, totalmem } from 'node:os';
import type { NodeFacts } from './node-object.ts';

const read = (p: string) => {
  try {
    return readFileSync(p, 'utf8').trim();
  } catch {
    return '';
  }
};

/** The first non-internal IPv4 address, else loopback. */
export function primaryIPv4(): string {
  for (const list of Object.values(networkInterfaces()))
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  return '127.0.0.1';
}

export function hostNodeFacts(
  name: string,
  kubeletVersion = 'v1.32.0',
): Omit<NodeFacts, 'handlers' | 'containerRuntimeVersion'> {
  const osRelease = read('/etc/os-release');
  return {
    name,
    ip: primaryIPv4(),
    cpus: cpus().length,
    memoryBytes: totalmem(),
    kernelVersion: release(),
    osImage: /^PRETTY_NAME="?([^"\n]*)"?/m.exec(osRelease)?.[1] ?? 'Linux',
    machineID: read('/etc/machine-id'),
    bootID: read('/proc/sys/kernel/random/boot_id'),
    kubeletVersion,
  };
}
