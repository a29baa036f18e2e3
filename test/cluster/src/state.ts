import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Ports } from './options.ts';
import type { ProcessRecord } from './processes.ts';

/** Where each piece of runtime data lives inside the state directory. */
export interface StatePaths {
  root: string;
  pki: string;
  etcdData: string;
  logs: string;
  config: string;
  kubeconfig: string;
  record: string;
}

export function statePaths(stateDir: string): StatePaths {
  return {
    root: stateDir,
    pki: join(stateDir, 'pki'),
    etcdData: join(stateDir, 'etcd'),
    logs: join(stateDir, 'logs'),
    config: join(stateDir, 'config'),
    kubeconfig: join(stateDir, 'kubeconfig'),
    record: join(stateDir, 'cluster.json'),
  };
}

/** What `up` started; `down` and `status` act on exactly this and nothing else. */
export interface ClusterRecord {
  binDir: string;
  ports: Ports;
  processes: ProcessRecord[];
}

export function readRecord(paths: StatePaths): ClusterRecord | undefined {
  if (!existsSync(paths.record)) return undefined;
  return JSON.parse(readFileSync(paths.record, 'utf8')) as ClusterRecord;
}

/** Written after every process start, so a crash mid-`up` still leaves `down` a full PID list. */
export function writeRecord(paths: StatePaths, record: ClusterRecord): void {
  mkdirSync(paths.root, { recursive: true });
  const tmp = `${paths.record}.tmp`;
  writeFileSync(tmp, JSON.stringify(record, null, 2) + '\n');
  renameSync(tmp, paths.record);
}
