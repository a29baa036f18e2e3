// dialInNetns against this process's own network namespace (/proc/self/ns/net: nothing to make or
// leak) and a real listener on loopback. The relay's start is slowed by a wrapper around node, as
// a loaded machine slows it: the connect timeout must not count it.
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialInNetns } from './netns-dial.ts';

const NETNS = '/proc/self/ns/net';
let server: Server;
let port: number;
let dir: string;
let slowNode: string;

beforeAll(async () => {
  server = createServer((s) => s.end('hello\n'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as { port: number }).port;
  dir = await mkdtemp(join(tmpdir(), 'asb-netns-dial-'));
  slowNode = join(dir, 'slow-node');
  await writeFile(slowNode, `#!/bin/sh\nsleep 1\nexec ${process.execPath} "$@"\n`);
  await chmod(slowNode, 0o755);
});

afterAll(async () => {
  server?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function read(s: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of s) text += String(chunk);
  return text;
}

describe('dialInNetns', () => {
  it('connects inside the namespace and streams both ways', async () => {
    const s = await dialInNetns(NETNS, port, { connectTimeoutMs: 2000 });
    expect(await read(s)).toBe('hello\n');
  });

  it('times the connect only: a relay that takes 1 s to start still meets a 300 ms timeout', async () => {
    const s = await dialInNetns(NETNS, port, { node: slowNode, connectTimeoutMs: 300 });
    expect(await read(s)).toBe('hello\n');
  });

  it('a stream its caller closes early (destroy, no error listener) raises nothing uncaught', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const quiet = (silent.address() as { port: number }).port;
    const s = await dialInNetns(NETNS, quiet, { connectTimeoutMs: 2000 });
    const closed = new Promise((r) => s.once('close', r));
    s.destroy();
    await closed;
    // Duplex.from reports a destroy without an error as an AbortError 'error' event: it must
    // not reach the process (a probe that destroyed its relay crashed a test run once).
    await new Promise((r) => setTimeout(r, 100));
    expect(s.destroyed).toBe(true);
    await new Promise((r) => silent.close(r));
  });

  it('reports a refused port as a dial error naming it', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const free = (closed.address() as { port: number }).port;
    await new Promise((r) => closed.close(r));
    await expect(dialInNetns(NETNS, free, { connectTimeoutMs: 2000 })).rejects.toThrow(
      new RegExp(`^dial tcp4 127\\.0\\.0\\.1:${free}: connect ECONNREFUSED`),
    );
  });

  it('names the namespace when it cannot be entered', async () => {
    await expect(dialInNetns(join(dir, 'no-such-netns'), port)).rejects.toThrow(
      /^cannot enter network namespace .*no-such-netns: nsenter exited 1/,
    );
  });
});
