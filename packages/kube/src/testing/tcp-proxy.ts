// A TCP proxy on loopback in front of a real API server, for tests of the client's connections:
// it counts the connections the client opens and can break them the way a server's idle close
// races a request (the request's first bytes meet a reset and never reach the server).
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  /** `server` with the proxy's port: the URL to give the client. */
  readonly url: string;
  /** Client connections accepted so far. */
  readonly accepted: number;
  /** Client connections open now. */
  readonly open: number;
  /**
   * Every connection open now is reset, both ways, as soon as the client sends on it again; the
   * bytes are not forwarded. Connections opened later pass through.
   */
  breakOpenConnections(): void;
  /** Listens (again) on the same port; see startTcpProxy's `listen`. */
  listen(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Proxies `server` (an http(s) URL on loopback). With `listen: false` the port is reserved and
 * then left closed (connections are refused) until `listen()` is called.
 */
export async function startTcpProxy(
  server: string,
  options: { listen?: boolean } = {},
): Promise<TcpProxy> {
  const upstream = new URL(server);
  const upstreamPort = Number(upstream.port || (upstream.protocol === 'https:' ? 443 : 80));
  const sockets = new Set<Socket>();
  const doomed = new WeakSet<Socket>();
  let accepted = 0;
  const proxy: Server = createServer((client) => {
    accepted++;
    sockets.add(client);
    const target = connect(upstreamPort, upstream.hostname);
    const drop = (): void => {
      sockets.delete(client);
      client.destroy();
      target.destroy();
    };
    client.on('data', (chunk: Buffer) => {
      if (doomed.has(client)) {
        sockets.delete(client);
        client.resetAndDestroy();
        target.resetAndDestroy();
        return;
      }
      target.write(chunk);
    });
    target.pipe(client);
    client.on('close', drop).on('error', drop);
    target.on('close', drop).on('error', drop);
  });
  const listenOn = (port: number): Promise<number> =>
    new Promise((resolve, reject) => {
      proxy.once('error', reject);
      proxy.listen(port, '127.0.0.1', () => {
        proxy.off('error', reject);
        const address = proxy.address();
        resolve(typeof address === 'object' && address ? address.port : port);
      });
    });
  const port = await listenOn(0);
  if (options.listen === false) await new Promise<void>((resolve) => proxy.close(() => resolve()));
  const url = new URL(server);
  url.port = String(port);
  return {
    url: url.toString().replace(/\/$/, ''),
    get accepted() {
      return accepted;
    },
    get open() {
      return sockets.size;
    },
    breakOpenConnections() {
      for (const socket of sockets) doomed.add(socket);
    },
    listen: async () => {
      await listenOn(port);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        if (!proxy.listening) resolve();
        else proxy.close(() => resolve());
      }),
  };
}
