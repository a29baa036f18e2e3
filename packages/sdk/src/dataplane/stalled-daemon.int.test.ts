// A daemon that does not answer must not make commands.run() wait out the command's own time
// limit (60 s by default) with a bare "timed out": within connectTimeoutMs it fails with a
// ConnectionError naming the sandbox and the address. Two real dead daemons on loopback, found
// where the Sandbox's Pod IP (the scripted kubelet's 127.0.0.1) and the gRPC port say: one that
// accepts TCP and never speaks (no HTTP/2 connection), one that completes the HTTP/2 handshake
// and never answers a stream (connected, silent).
import { createServer as createH2Server, type Http2Server } from 'node:http2';
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionError, Sandbox, type ConnectionOptions } from '../index.ts';
import { openSdkWorld, type SdkWorld } from '../testing/world.ts';

function listen(server: Server | Http2Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
  );
}

describe('commands.run against a daemon that does not answer', () => {
  let world: SdkWorld;
  let sandbox: Sandbox;
  const sockets = new Set<Socket>();
  const mute = createServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined);
  });
  // Answers the HTTP/2 handshake (grpc-js counts the connection ready on the server's SETTINGS)
  // and leaves every stream unanswered.
  const silent = createH2Server();
  silent.on('stream', () => undefined);
  silent.on('session', (s) => s.on('error', () => undefined));
  let mutePort = 0;
  let silentPort = 0;
  const conn = (): ConnectionOptions => ({
    kubeconfig: world.kubeconfigPath,
    namespace: world.namespace,
    hostEnv: {},
    connectTimeoutMs: 1000,
  });

  beforeAll(async () => {
    world = await openSdkWorld();
    await world.createTemplate('tpl');
    await world.createPool('pool', 'tpl', 1);
    mutePort = await listen(mute);
    silentPort = await listen(silent);
    sandbox = await Sandbox.create({ ...conn(), warmPool: 'pool' });
  });
  afterAll(async () => {
    await sandbox?.kill();
    await sandbox?.close();
    for (const s of sockets) s.destroy();
    await new Promise((r) => mute.close(r));
    await new Promise((r) => silent.close(r));
    await world?.close();
  });

  it('no HTTP/2 connection: a ConnectionError naming the sandbox and address, not a 60 s wait', async () => {
    const handle = await Sandbox.connect(sandbox.id, {
      ...conn(),
      sandboxdPorts: { rest: mutePort, grpc: mutePort },
    });
    try {
      const err = await handle.commands.run('echo hi').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ConnectionError);
      expect((err as ConnectionError).message).toBe(
        `sandbox ${sandbox.sandboxName}: no connection to its daemon at 127.0.0.1:${mutePort} within 1000 ms (echo hi); check it with sandbox.info() or agent-sandbox get ${sandbox.sandboxName}, or raise connectTimeoutMs`,
      );
    } finally {
      await handle.close();
    }
  });

  it('connected but silent: a ConnectionError saying so, for background commands too', async () => {
    const handle = await Sandbox.connect(sandbox.id, {
      ...conn(),
      sandboxdPorts: { rest: silentPort, grpc: silentPort },
    });
    try {
      for (const background of [false, true]) {
        const err = await (
          background
            ? handle.commands.run('sleep 1', { background: true })
            : handle.commands.run('sleep 1')
        ).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(ConnectionError);
        // A fresh handle's channel connects after the Start is sent; the message says when.
        expect((err as ConnectionError).message).toMatch(
          new RegExp(
            `^sandbox ${sandbox.sandboxName}: its daemon at 127\\.0\\.0\\.1:${silentPort} (is connected|connected after \\d+ ms) but did not start the command within 1000 ms \\(sleep 1\\)`,
          ),
        );
      }
    } finally {
      await handle.close();
    }
  });

  it('connectTimeoutMs is checked eagerly, from the option and the environment', async () => {
    await expect(Sandbox.connect(sandbox.id, { ...conn(), connectTimeoutMs: 0 })).rejects.toThrow(
      'connectTimeoutMs 0 must be a whole number of milliseconds > 0',
    );
    await expect(
      Sandbox.connect(sandbox.id, {
        kubeconfig: world.kubeconfigPath,
        namespace: world.namespace,
        hostEnv: { AGENT_SANDBOX_CONNECT_TIMEOUT_MS: 'soon' },
      }),
    ).rejects.toThrow('AGENT_SANDBOX_CONNECT_TIMEOUT_MS=soon is not a number');
  });
});
