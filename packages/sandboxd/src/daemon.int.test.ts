// startSandboxd's listeners: a taken port fails the start (naming it), unless skipBusyPorts
// leaves that one listener off and the others serve (how the node agent injects the daemon next
// to a workload that already uses 8080). The node's exec socket is dialled before any listener.
import { createServer, type Server } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxd } from './daemon.ts';

let taken: Server;
let port: number;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sandboxd-ports-'));
  taken = createServer();
  await new Promise<void>((r) => taken.listen(0, '127.0.0.1', () => r()));
  port = (taken.address() as { port: number }).port;
});

afterAll(async () => {
  await new Promise<void>((r) => taken.close(() => r()));
  await rm(dir, { recursive: true, force: true });
});

const base = () => ({ rootDir: join(dir, 'root'), listenHost: '127.0.0.1', legacyPort: 0 });

describe('busy ports', () => {
  for (const which of ['restPort', 'grpcPort'] as const)
    it(`fails on a taken ${which} by default, skips it with skipBusyPorts`, async () => {
      const other = which === 'restPort' ? { grpcPort: 0 } : { restPort: 0 };
      await expect(startSandboxd({ ...base(), ...other, [which]: port })).rejects.toThrow(
        /EADDRINUSE|in use/i,
      );
      const d = await startSandboxd({ ...base(), ...other, [which]: port, skipBusyPorts: true });
      try {
        expect(d.skipped).toEqual([`${which === 'restPort' ? 'rest' : 'grpc'} :${port}`]);
        const health = await fetch(`${d.legacyUrl}/`);
        expect(await health.json()).toEqual({
          status: 'ok',
          message: 'Sandbox Runtime is active.',
        });
        if (which === 'restPort') expect(d.grpcAddress).toMatch(/:\d+$/);
        else expect((await fetch(`${d.restUrl}/v1/health`)).status).toBe(200);
      } finally {
        await d.close();
      }
    });
});

describe('the node exec channel', () => {
  it('is dialled before any listener binds: a start that fails on a taken port has dialled', async () => {
    const path = join(dir, 'exec.sock');
    const node = createServer();
    await new Promise<void>((r) => node.listen(path, () => r()));
    // libuv's connect(2) on a unix socket is made at once, so the node accepts it even after the
    // failed start has closed its end.
    const dialled = new Promise<boolean>((resolve) => {
      const t = setTimeout(() => resolve(false), 5000);
      node.once('connection', (s) => {
        clearTimeout(t);
        s.destroy();
        resolve(true);
      });
    });
    try {
      await expect(
        startSandboxd({ ...base(), grpcPort: 0, restPort: port, nodeExecSocket: path }),
      ).rejects.toThrow(/EADDRINUSE|in use/i);
      expect(await dialled).toBe(true);
    } finally {
      await new Promise<void>((r) => node.close(() => r()));
    }
  });
});
