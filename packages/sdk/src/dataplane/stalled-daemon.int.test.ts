// A daemon that does not answer must not make commands.run() wait out the command's own time
// limit (60 s by default) with a bare "timed out", nor a file call or a one-shot gRPC call hang:
// within connectTimeoutMs each fails with a ConnectionError naming the sandbox and the address.
// Real dead daemons on loopback, found where the Sandbox's Pod IP (the scripted kubelet's
// 127.0.0.1) and the ports say: one that accepts TCP and never speaks (no HTTP/2 connection, no
// HTTP answer), one that completes the HTTP/2 handshake and never answers a stream (connected,
// silent), and a gRPC server that starts a process and then answers no one-shot call.
import { PROCESS_SERVICE, grpcServiceDefinition } from '@agent-sandbox/protocol';
import { Server as GrpcServer, ServerCredentials } from '@grpc/grpc-js';
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

/** Resolves once `socket` (the server's side) is closed; fails past `ms`. */
function closedWithin(socket: Socket, ms: number): Promise<void> {
  if (socket.closed) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`connection still open ${ms} ms after close()`)),
      ms,
    );
    socket.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

describe('commands.run against a daemon that does not answer', () => {
  let world: SdkWorld;
  let sandbox: Sandbox;
  const sockets = new Set<Socket>();
  // Reads (so it sees a client's end) and never writes.
  const mute = createServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined);
    s.resume();
  });
  // Answers the HTTP/2 handshake (grpc-js counts the connection ready on the server's SETTINGS)
  // and leaves every stream unanswered.
  const silent = createH2Server();
  silent.on('stream', () => undefined);
  silent.on('session', (s) => s.on('error', () => undefined));
  // Starts every command (an init frame, then nothing) and never answers a one-shot call.
  const starter = new GrpcServer();
  starter.addService(grpcServiceDefinition(PROCESS_SERVICE), {
    Start: (call: { write: (e: object) => void }) => call.write({ init: { process_id: 7 } }),
    WriteStdin: () => undefined,
    SendSignal: () => undefined,
    ResizeTTY: () => undefined,
  });
  let mutePort = 0;
  let silentPort = 0;
  let starterPort = 0;
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
    starterPort = await new Promise<number>((resolve, reject) =>
      starter.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (e, p) =>
        e ? reject(e) : resolve(p),
      ),
    );
    sandbox = await Sandbox.create({ ...conn(), warmPool: 'pool' });
  });
  afterAll(async () => {
    await sandbox?.kill();
    await sandbox?.close();
    for (const s of sockets) s.destroy();
    await new Promise((r) => mute.close(r));
    await new Promise((r) => silent.close(r));
    starter.forceShutdown();
    await world?.close();
  });

  it('no HTTP/2 connection: a ConnectionError naming the sandbox and address, not a 60 s wait', async () => {
    const handle = await Sandbox.connect(sandbox.id, {
      ...conn(),
      sandboxdPorts: { rest: mutePort, grpc: mutePort },
    });
    const before = new Set(sockets);
    try {
      const err = await handle.commands.run('echo hi').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ConnectionError);
      expect((err as ConnectionError).message).toBe(
        `sandbox ${sandbox.sandboxName}: no connection to its daemon at 127.0.0.1:${mutePort} within 1000 ms (channel CONNECTING) (echo hi); check it with sandbox.info() or agent-sandbox get ${sandbox.sandboxName}, or raise connectTimeoutMs`,
      );
    } finally {
      await handle.close();
    }
    // grpc-js alone leaves that connection open for good after close() (issue 13): the daemon's
    // side must see it end.
    const made = [...sockets].filter((s) => !before.has(s));
    expect(made.length).toBeGreaterThan(0);
    await Promise.all(made.map((s) => closedWithin(s, 2000)));
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

  it('files: no HTTP answer within connectTimeoutMs is a ConnectionError, for every call', async () => {
    const handle = await Sandbox.connect(sandbox.id, {
      ...conn(),
      sandboxdPorts: { rest: mutePort, grpc: mutePort },
    });
    const at = `127.0.0.1:${mutePort}`;
    const calls: [string, () => Promise<unknown>][] = [
      ['read /a', () => handle.files.read('/a')],
      ['list /', () => handle.files.list('/')],
      ['exists /a', () => handle.files.exists('/a')],
      ['remove /a', () => handle.files.remove('/a')],
      ['write /a', () => handle.files.write('/a', 'hi')],
      ['write /b', () => handle.files.write('/b', new Blob(['hi']).stream())],
    ];
    try {
      for (const [context, call] of calls) {
        const began = Date.now();
        const err = await call().catch((e: unknown) => e);
        expect(err).toBeInstanceOf(ConnectionError);
        expect((err as ConnectionError).message).toBe(
          `sandbox ${sandbox.sandboxName}: no answer from its daemon at http://${at} within 1000 ms (${context}); check it with sandbox.info() or agent-sandbox get ${sandbox.sandboxName}, or raise connectTimeoutMs`,
        );
        // Not before the deadline; the bound after it only catches a hang (a loaded machine).
        expect(Date.now() - began).toBeGreaterThanOrEqual(990);
        expect(Date.now() - began).toBeLessThan(20_000);
      }
      const err = await handle.files.watch('/', () => undefined).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ConnectionError);
      expect((err as ConnectionError).message).toBe(
        `sandbox ${sandbox.sandboxName}: no connection to its daemon at ${at} within 1000 ms (watch /); check it with sandbox.info() or agent-sandbox get ${sandbox.sandboxName}, or raise connectTimeoutMs`,
      );
    } finally {
      await handle.close();
    }
  });

  it('one-shot gRPC calls of a started command: a ConnectionError past connectTimeoutMs', async () => {
    const handle = await Sandbox.connect(sandbox.id, {
      ...conn(),
      sandboxdPorts: { rest: mutePort, grpc: starterPort },
    });
    try {
      const running = await handle.commands.run('sleep 60', { background: true, stdin: true });
      expect(running.pid).toBe(7);
      const message = (context: string): string =>
        `sandbox ${sandbox.sandboxName}: its daemon at 127.0.0.1:${starterPort} did not answer within 1000 ms (${context}); check it with sandbox.info() or agent-sandbox get ${sandbox.sandboxName}, or raise connectTimeoutMs`;
      for (const [context, call] of [
        ['kill 7', () => running.kill()],
        ['stdin of 7', () => running.sendStdin('x')],
        ['resize 7', () => running.resize({ cols: 80, rows: 24 })],
        ['close stdin of 7', () => running.closeStdin()],
      ] as const) {
        const err = await call().catch((e: unknown) => e);
        expect(err).toBeInstanceOf(ConnectionError);
        expect((err as ConnectionError).message).toBe(message(context));
      }
      running.disconnect();
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
