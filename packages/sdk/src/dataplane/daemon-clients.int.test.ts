// Dialling a daemon ahead of the first call: against a real sandboxd the channel is open (and
// says when) before any call is made; against a port nobody listens on the failed channel is
// dropped at once, so the next call gets a fresh client rather than one held in grpc-js's
// reconnect back-off (which failed the first command with "No connection established").
import { PROCESS_SERVICE } from '@agent-sandbox/protocol';
import { connectivityState } from '@grpc/grpc-js';
import { rm } from 'node:fs/promises';
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

  it('keepOnly closes the clients of other addresses', () => {
    const kept = clients.client('127.0.0.1:1', PROCESS_SERVICE);
    const other = clients.client('127.0.0.1:2', PROCESS_SERVICE);
    clients.keepOnly('127.0.0.1:1');
    expect(clients.client('127.0.0.1:1', PROCESS_SERVICE)).toBe(kept);
    expect(other.getChannel().getConnectivityState(false)).toBe(connectivityState.SHUTDOWN);
  });
});
