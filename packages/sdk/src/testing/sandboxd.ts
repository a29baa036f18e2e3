// A real sandboxd on loopback (REST and gRPC on free ports, no legacy port) rooted in a fresh
// temp dir, for the SDK's data-plane tests. Dev-only: sandboxd is a devDependency here.
/* eslint-disable-next-line no-restricted-imports -- test support runs the real daemon */
import { startSandboxd, type SandboxdHandle } from '@agent-sandbox/sandboxd';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The daemon and the temp dir (`base`; its root is `base/root`) the caller removes. */
export async function startTestSandboxd(
  prefix: string,
  /** The gRPC port to listen on. @default a free one */
  grpcPort = 0,
): Promise<{ daemon: SandboxdHandle; base: string }> {
  const base = await mkdtemp(join(tmpdir(), prefix));
  const daemon = await startSandboxd({
    rootDir: join(base, 'root'),
    listenHost: '127.0.0.1',
    restPort: 0,
    grpcPort,
    legacyPort: -1,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: base },
  });
  return { daemon, base };
}
