// Connection upgrades through the fetch-handler boundary. A handler that takes over the client's
// socket (exec, attach, portforward proxied to a node) returns `upgradeResponse(takeover)`; the
// socket adapter (node-server.ts) hands it the raw socket. Any other Response to an upgrade
// request is written as a plain HTTP answer, so errors reach the client as Status JSON.
import type { Duplex } from 'node:stream';

/** Receives the client's socket and the bytes already read past the request head. */
export type UpgradeTakeover = (socket: Duplex, head: Buffer) => void;

const takeovers = new WeakMap<Response, UpgradeTakeover>();

/**
 * A Response that stands for "the socket is now the handler's". Only node-server.ts acts on it;
 * served outside an upgrade (e.g. by a test calling `handle` directly) it is a 500.
 */
export function upgradeResponse(takeover: UpgradeTakeover): Response {
  const response = new Response(
    'this response takes over the connection and cannot be served as HTTP',
    {
      status: 500,
      headers: { 'Content-Type': 'text/plain' },
    },
  );
  takeovers.set(response, takeover);
  return response;
}

/** The takeover behind an upgrade Response, if it is one. */
export function upgradeTakeover(response: Response): UpgradeTakeover | undefined {
  return takeovers.get(response);
}

/** Whether the client asked to switch protocols (WebSocket or SPDY). */
export function isUpgradeRequest(request: Request): boolean {
  const connection = request.headers.get('connection') ?? '';
  return request.headers.has('upgrade') && /\bupgrade\b/i.test(connection);
}

/** Writes `response` as a complete HTTP/1.1 answer on a raw socket, then closes it. */
export async function writeRawResponse(socket: Duplex, response: Response): Promise<void> {
  const body = Buffer.from(await response.arrayBuffer());
  const lines = [`HTTP/1.1 ${response.status} ${response.statusText || 'Error'}`];
  response.headers.forEach((value, name) => {
    if (name !== 'content-length' && name !== 'connection' && name !== 'transfer-encoding')
      lines.push(`${name}: ${value}`);
  });
  lines.push(`content-length: ${body.length}`, 'connection: close');
  socket.end(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), body]));
}
