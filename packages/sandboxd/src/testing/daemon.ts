// Test helpers: a daemon on loopback over a fresh temp root.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startSandboxd, type SandboxdHandle } from '../daemon.ts';
import type { SandboxdOptions } from '../options.ts';

export interface TestDaemon extends SandboxdHandle {
  /** The temp directory holding the root (and room for things outside it). */
  base: string;
  stop(): Promise<void>;
}

export async function startTestDaemon(options: SandboxdOptions = {}): Promise<TestDaemon> {
  const base = await mkdtemp(path.join(tmpdir(), 'sandboxd-'));
  const daemon = await startSandboxd({
    rootDir: path.join(base, 'root'),
    listenHost: '127.0.0.1',
    restPort: 0,
    grpcPort: 0,
    legacyPort: 0,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: base },
    ...options,
  });
  return {
    ...daemon,
    base,
    stop: async () => {
      await daemon.close();
      await rm(base, { recursive: true, force: true });
    },
  };
}
