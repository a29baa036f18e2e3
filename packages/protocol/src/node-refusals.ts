// Wires http-refusals.ts into a Node HTTP server: what never reaches a request handler — a
// request Node's parser refuses (`clientError`) or a CONNECT — is answered with the server's own
// error body, straight on the socket. Shared by sandboxd's listeners and the router.
import { maxHeaderSize, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import {
  clientErrorRefusal,
  methodRefusal,
  rawHttpResponse,
  type HttpRefusal,
} from './http-refusals.ts';

/** `body` renders a refusal in the server's vocabulary, as `application/json`. */
export function answerRefusals(server: Server, body: (refusal: HttpRefusal) => string): void {
  // The response in flight on each socket, so a parse error in its body is not answered twice.
  const inflight = new WeakMap<Socket, ServerResponse>();
  const bytes = (r: HttpRefusal) => rawHttpResponse(r.status, 'application/json', body(r));
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    inflight.set(req.socket, res);
    res.on('close', () => {
      if (inflight.get(req.socket) === res) inflight.delete(req.socket);
    });
  });
  server.on('clientError', (err: Error & { code?: string }, socket: Socket) => {
    const refusal = clientErrorRefusal(err, maxHeaderSize);
    // Once a response has started, a second status line would corrupt it: cut the connection.
    if (!refusal || !socket.writable || inflight.get(socket)?.headersSent) socket.destroy();
    else socket.end(bytes(refusal));
  });
  // CONNECT never reaches the request handler; without a listener Node drops the socket unanswered.
  server.on('connect', (req: IncomingMessage, socket: Socket) => {
    socket.on('error', () => socket.destroy());
    socket.end(bytes(methodRefusal(req.method ?? 'CONNECT')));
  });
}
