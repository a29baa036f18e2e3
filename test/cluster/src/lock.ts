import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ClusterError } from './errors.ts';

/**
 * A directory lock beside the state dir, so two `up`s (say CI's and a test helper's) never race.
 * A live owner is waited for up to `waitMs` (parallel test files all call `up`, and a reused
 * cluster's `up` holds the lock while it checks the webhook); an owner whose PID is gone is
 * stale and taken over.
 */
export async function acquireLock(stateDir: string, waitMs = 120_000): Promise<() => void> {
  const dir = `${stateDir}.lock`;
  mkdirSync(join(dir, '..'), { recursive: true });
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      mkdirSync(dir);
      writeFileSync(join(dir, 'pid'), String(process.pid));
      return () => rmSync(dir, { recursive: true, force: true });
    } catch (err: unknown) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number(readPid(join(dir, 'pid')));
      if (owner && owner !== process.pid && isAlive(owner)) {
        if (Date.now() < deadline) {
          await sleep(100);
          continue;
        }
        throw new ClusterError(
          'LOCKED',
          `another cluster command (pid ${owner}) is working on ${stateDir}; wait for it to ` +
            `finish, or if it hangs stop it with \`kill ${owner}\``,
        );
      }
      if (!owner) {
        // Its owner is between mkdir and writing its pid, or died there: give it a moment.
        if (Date.now() < deadline) {
          await sleep(100);
          if (readPid(join(dir, 'pid')) === '') rmSync(dir, { recursive: true, force: true });
          continue;
        }
      }
      rmSync(dir, { recursive: true, force: true }); // stale: its owner died
    }
  }
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
