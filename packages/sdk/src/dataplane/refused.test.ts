// retryRefused against real loopback sockets: a daemon that starts listening a moment late is
// reached; one that never listens fails once the window ends; other failures are not retried.
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { isRefused, retryRefused } from './refused.ts';

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** A loopback port nothing listens on (taken and released). */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

function listen(port: number): Promise<void> {
  const s = createHttpServer((_req, res) => res.end('ok'));
  servers.push(s);
  return new Promise((r) => s.listen(port, '127.0.0.1', r));
}

const get = (port: number) => () => fetch(`http://127.0.0.1:${port}/`).then(() => 'reached');

describe('retryRefused', () => {
  it('reaches a daemon that starts listening after the first attempts', async () => {
    const port = await closedPort();
    let refusals = 0;
    const late = new Promise((r) => setTimeout(r, 300)).then(() => listen(port));
    const result = await retryRefused(get(port), { onRefused: () => void refusals++ });
    await late;
    expect(result).toBe('reached');
    expect(refusals).toBeGreaterThan(0);
  });

  it('fails with the refusal once the window ends', async () => {
    const port = await closedPort();
    const started = Date.now();
    const err = await retryRefused(get(port), { windowMs: 400 }).catch((e: unknown) => e);
    expect(isRefused(err)).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
  });

  it('does not retry other failures, and stops on abort', async () => {
    let attempts = 0;
    const boom = new Error('boom');
    await expect(
      retryRefused(() => {
        attempts++;
        return Promise.reject(boom);
      }),
    ).rejects.toBe(boom);
    expect(attempts).toBe(1);

    const port = await closedPort();
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 150);
    await expect(retryRefused(get(port), { signal: abort.signal })).rejects.toThrow(
      /aborted while waiting for the sandbox daemon/,
    );
  });

  it('recognises grpc-js refusals in the cause chain', () => {
    const grpcErr = Object.assign(new Error('14 UNAVAILABLE'), {
      details: 'No connection established. Last error: connect ECONNREFUSED 10.0.0.7:9090',
    });
    expect(isRefused(new Error('run ls: unavailable', { cause: grpcErr }))).toBe(true);
    expect(isRefused(new Error('other', { cause: new Error('ETIMEDOUT') }))).toBe(false);
  });
});
