// A cold create dials the daemon while it starts: the Pod is reported Running on its IP first,
// the daemon's port opens a moment later (a proxy to a real sandboxd, which counts the
// connections that spoke: only the SDK dials it; its bare probes say nothing), and the Pod is
// reported Ready only once the daemon has answered a connection the SDK spoke on — made before
// it saw Ready. The first command then runs on that one connection. Without the early dial
// nobody connects, Ready never comes and the create times out. Both sources that make a Sandbox of their own: a template (its claim) and an image.
// eslint-disable-next-line no-restricted-imports -- the test runs a real daemon
import type { SandboxdHandle } from '@agent-sandbox/sandboxd';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { rm } from 'node:fs/promises';
import { connect, createServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sandbox } from '../index.ts';
import { closedPort, until } from '../testing/loopback.ts';
import { startTestSandboxd } from '../testing/sandboxd.ts';
import { openSdkWorld, type SdkWorld } from '../testing/world.ts';

interface Proxy {
  close(): Promise<void>;
  /** Connections whose client sent something, and those of them the daemon answered. */
  count: { spoken: number; answered: number };
}

/** A TCP proxy on `port` to `target` that counts the connections that spoke. */
function proxy(port: number, target: number): Promise<Proxy> {
  const count = { spoken: 0, answered: 0 };
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const daemon = connect(target, '127.0.0.1');
    for (const s of [client, daemon]) {
      sockets.add(s);
      s.on('error', () => s.destroy());
      s.once('close', () => sockets.delete(s));
    }
    let spoke = false;
    client.once('data', () => ((spoke = true), count.spoken++));
    daemon.on('data', () => {
      if (spoke) count.answered++;
      spoke = false; // counted once
    });
    client.pipe(daemon).pipe(client);
  });
  const close = (): Promise<void> => {
    for (const s of sockets) s.destroy();
    return new Promise((r) => server.close(() => r()));
  };
  return new Promise((r) => server.listen(port, '127.0.0.1', () => r({ close, count })));
}

const eventTime = (span: ReadableSpan | undefined, name: string): number | undefined => {
  const t = span?.events.find((e) => e.name === name)?.time;
  return t === undefined ? undefined : t[0] * 1000 + t[1] / 1e6;
};

describe('a cold create dials the daemon while it starts', () => {
  let world: SdkWorld;
  let grpcPort: number;
  let daemon: { daemon: SandboxdHandle; base: string };
  let port: Proxy | undefined;
  const spans = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(spans)],
  });
  beforeAll(async () => {
    grpcPort = await closedPort();
    daemon = await startTestSandboxd('sdk-dial-start-');
    const target = Number(daemon.daemon.grpcAddress?.split(':').pop());
    world = await openSdkWorld({
      // The daemon listens a moment after the Pod runs; Ready waits for it to answer the SDK.
      readyWhen: async () => {
        await new Promise((r) => setTimeout(r, 200)); // refused meanwhile
        port = await proxy(grpcPort, target);
        const count = port.count;
        await until('the SDK connected and the daemon answered', () => count.answered > 0);
      },
    });
    await world.createTemplate('tpl');
  });
  afterAll(async () => {
    await world?.close();
    await daemon?.daemon.close();
    if (daemon) await rm(daemon.base, { recursive: true, force: true });
    await tracerProvider.shutdown();
  });

  for (const source of [{ template: 'tpl' }, { image: 'busybox' }]) {
    it(`${Object.keys(source)[0]}: the first command's channel was connected before Ready`, async () => {
      spans.reset();
      const sandbox = await Sandbox.create({
        kubeconfig: world.kubeconfigPath,
        namespace: world.namespace,
        hostEnv: {},
        sandboxdPorts: { rest: 1, grpc: grpcPort },
        tracerProvider,
        readyTimeoutMs: 15_000, // past until()'s 10 s: without the early dial, a TimeoutError
        ...source,
      });
      try {
        const r = await sandbox.commands.run('echo hi');
        expect(r.stdout).toBe('hi\n');
        const finished = spans.getFinishedSpans();
        const ready = eventTime(
          finished.find((s) => s.name === 'sandbox.create'),
          'sandbox.ready',
        );
        const dialling = eventTime(
          finished.find((s) => s.name === 'sandbox.create'),
          'sandbox.daemon.dialling',
        );
        expect(ready).toBeDefined();
        expect(dialling ?? Infinity).toBeLessThan(ready ?? 0);
        expect(port?.count).toEqual({ spoken: 1, answered: 1 }); // the command used that one
      } finally {
        await sandbox.kill();
        await sandbox.close();
        await port?.close();
        port = undefined;
      }
    });
  }
});
