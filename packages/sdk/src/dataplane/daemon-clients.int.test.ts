// Dialling a daemon ahead of the first call: against a real sandboxd the channel is open (and
// says when) before any call is made; against a port nobody listens on the failed channel is
// dropped at once, so the next call gets a fresh client rather than one held in grpc-js's
// reconnect back-off (which failed the first command with "No connection established"); and
// dialled while a daemon starts, the channel opens once it listens, with no call made.
import { PROCESS_SERVICE } from '@agent-sandbox/protocol';
import { connectivityState } from '@grpc/grpc-js';
import { rm } from 'node:fs/promises';
import { createServer as createH2Server, type Http2Server } from 'node:http2';
// eslint-disable-next-line no-restricted-imports -- the test runs a real daemon
import type { SandboxdHandle } from '@agent-sandbox/sandboxd';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandboxd } from '../testing/sandboxd.ts';
import { closedPort, until } from '../testing/loopback.ts';
import { DaemonClients } from './daemon-clients.ts';

describe('DaemonClients.dial', () => {
  let daemon: SandboxdHandle;
  let base: string;
  const clients = new DaemonClients();
  beforeAll(async () => {
    ({ daemon, base } = await startTestSandboxd('sdk-dial-'));
  });
  afterAll(async () => {
    clients.close();
    await daemon?.close();
    if (base) await rm(base, { recursive: true, force: true });
  });

  it('opens the channel before any call and records when it was ready', async () => {
    const address = daemon.grpcAddress ?? '';
    const before = performance.now();
    clients.dial(address, 5000);
    const client = clients.client(address, PROCESS_SERVICE);
    await until('connectedAt', () => clients.connectedAt(address) !== undefined);
    expect(clients.connectedAt(address)).toBeGreaterThanOrEqual(before);
    expect(client.getChannel().getConnectivityState(false)).toBe(connectivityState.READY);
    expect(clients.client(address, PROCESS_SERVICE)).toBe(client); // the call reuses it
  });

  it('drops a channel whose connection is refused, so the next call starts fresh', async () => {
    const address = `127.0.0.1:${await closedPort()}`;
    clients.dial(address, 5000);
    const dialled = clients.client(address, PROCESS_SERVICE);
    await until('dropped', () => clients.client(address, PROCESS_SERVICE) !== dialled);
    expect(dialled.getChannel().getConnectivityState(false)).toBe(connectivityState.SHUTDOWN);
    expect(clients.connectedAt(address)).toBeUndefined();
  });

  it("one handle's close() leaves another's connection to the same daemon open", async () => {
    const address = daemon.grpcAddress ?? '';
    const other = new DaemonClients();
    try {
      other.dial(address, 5000);
      await until('other connected', () => other.connectedAt(address) !== undefined);
      const mine = new DaemonClients();
      mine.dial(address, 5000);
      await until('mine connected', () => mine.connectedAt(address) !== undefined);
      mine.close();
      await new Promise((r) => setTimeout(r, 200));
      const channel = other.client(address, PROCESS_SERVICE).getChannel();
      expect(channel.getConnectivityState(false)).toBe(connectivityState.READY);
    } finally {
      other.close();
    }
  });

  it('dialUntilListening connects once a server listens on a port that refused at first', async () => {
    const port = await closedPort();
    const address = `127.0.0.1:${port}`;
    const starting = new DaemonClients();
    const stopDial = new AbortController();
    const server = createH2Server();
    // Each refused attempt's credentials go with it: their signal would collect a listener per
    // connect (Node's warning past ten).
    const warnings: string[] = [];
    const onWarning = (w: Error): number => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      starting.dialUntilListening(address, 5000, stopDial.signal);
      await new Promise((r) => setTimeout(r, 150)); // refused meanwhile, and dialled again
      expect(starting.connectedAt(address)).toBeUndefined();
      const before = performance.now();
      await listen(server, port);
      await until('connected without a call', () => starting.connectedAt(address) !== undefined);
      expect(starting.connectedAt(address)).toBeGreaterThanOrEqual(before);
      expect(warnings).toEqual([]);
    } finally {
      process.off('warning', onWarning);
      stopDial.abort();
      starting.close();
      await close(server);
    }
  });

  it('dialUntilListening stops dialling once its signal aborts, and after close()', async () => {
    for (const stop of ['abort', 'close'] as const) {
      const port = await closedPort();
      const starting = new DaemonClients();
      const stopDial = new AbortController();
      starting.dialUntilListening(`127.0.0.1:${port}`, 5000, stopDial.signal);
      await new Promise((r) => setTimeout(r, 50));
      if (stop === 'abort') stopDial.abort();
      else starting.close();
      await new Promise((r) => setTimeout(r, 50)); // an attempt already out ends (refused)
      const server = createH2Server();
      let connections = 0;
      server.on('connection', () => connections++);
      try {
        await listen(server, port);
        await new Promise((r) => setTimeout(r, 200)); // ten periods: no attempt comes
        expect({ stop, connections }).toEqual({ stop, connections: 0 });
      } finally {
        stopDial.abort();
        starting.close();
        await close(server);
      }
    }
  });

  it('keepOnly closes the clients of other addresses', () => {
    const kept = clients.client('127.0.0.1:1', PROCESS_SERVICE);
    const other = clients.client('127.0.0.1:2', PROCESS_SERVICE);
    clients.keepOnly('127.0.0.1:1');
    expect(clients.client('127.0.0.1:1', PROCESS_SERVICE)).toBe(kept);
    expect(other.getChannel().getConnectivityState(false)).toBe(connectivityState.SHUTDOWN);
  });
});

const listen = (server: Http2Server, port: number): Promise<void> =>
  new Promise((r) => server.listen(port, '127.0.0.1', r));
const close = (server: Http2Server): Promise<void> => new Promise((r) => server.close(() => r()));
