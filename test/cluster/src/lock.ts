import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ClusterError } from './errors.ts';

/**
 * A directory lock beside the state dir, so two `up`s (say CI's and a test helper's) never race.
 * A lock whose owner PID is gone is stale and taken over.
 */
export function acquireLock(stateDir: string): () => void {
  const dir = `${stateDir}.lock`;
  mkdirSync(join(dir, '..'), { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      mkdirSync(dir);
      writeFileSync(join(dir, 'pid'), String(process.pid));
      return () => rmSync(dir, { recursive: true, force: true });
    } catch (err: unknown) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number(readPid(join(dir, 'pid')));
      if (owner && owner !== process.pid && isAlive(owner)) {
        throw new ClusterError(
          'LOCKED',
          `another cluster command (pid ${owner}) is working on ${stateDir}; wait for it to ` +
            `finish, or if it hangs stop it with \`kill ${owner}\``,
        );
      }
      rmSync(dir, { recursive: true, force: true }); // stale: its owner died
    }
  }
  throw new ClusterError('LOCKED', `could not take the lock ${dir}; remove it and retry`);
}

function readPid(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return ''; // owner died between mkdir and writing its pid
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err: unknown) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
