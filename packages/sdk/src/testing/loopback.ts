// Small helpers the SDK's data-plane tests share: a loopback port nobody listens on, and a wait
// for a condition that fails naming it.
import { createServer } from 'node:net';

/** A loopback port that was free a moment ago (connecting to it is refused). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

/** Resolves once `ok()` holds; rejects naming `what` after 10 s. */
export async function until(what: string, ok: () => boolean): Promise<void> {
  const end = Date.now() + 10_000;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`not within 10 s: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
