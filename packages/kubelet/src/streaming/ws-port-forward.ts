// Port-forward over the plain WebSocket channel protocol (client-node and Python, §3.5): two
// channels per requested port (data 2i, error 2i+1), each opened by a message carrying the port
// as 2-byte little-endian; one TCP connection per port for the life of the WebSocket.
import type { WebSocket } from 'ws';
import type { Duplex } from 'node:stream';
import { decodeFrame, encodeFrame, isBase64Protocol } from './channel-protocol.ts';

export interface WsPortForwardOptions {
  ports: number[];
  dial(port: number): Promise<Duplex>;
  describeError(err: unknown): string;
}

function send(ws: WebSocket, channel: number, payload: Uint8Array, base64: boolean): void {
  if (ws.readyState !== ws.OPEN) return;
  const msg = encodeFrame(channel, payload, base64);
  ws.send(msg.data, { binary: msg.binary });
}

function portBytes(port: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(port);
  return b;
}

export async function serveWsPortForward(
  ws: WebSocket,
  protocol: string,
  options: WsPortForwardOptions,
): Promise<void> {
  const base64 = isBase64Protocol(protocol);
  if (options.ports.length === 0) {
    send(ws, 1, Buffer.from('query parameter "port" is required'), base64);
    ws.close(1000);
    return;
  }
  const sockets: (Duplex | undefined)[] = [];
  const early: { channel: number; payload: Buffer }[] = [];
  ws.on('message', (data: Buffer, isBinary: boolean) => {
    const frame = decodeFrame(data, isBinary, base64);
    if (!frame || frame.channel % 2 !== 0) return;
    const socket = sockets[frame.channel / 2];
    if (socket) socket.write(frame.payload);
    else early.push(frame);
  });
  const closeAll = (): void => {
    for (const s of sockets) s?.destroy();
  };
  ws.once('close', closeAll);
  ws.once('error', closeAll);

  options.ports.forEach((port, i) => {
    send(ws, 2 * i, portBytes(port), base64);
    send(ws, 2 * i + 1, portBytes(port), base64);
  });
  await Promise.all(
    options.ports.map(async (port, i) => {
      let socket: Duplex;
      try {
        socket = await options.dial(port);
      } catch (err: unknown) {
        send(
          ws,
          2 * i + 1,
          Buffer.from(`error forwarding port ${port}: ${options.describeError(err)}`),
          base64,
        );
        ws.close(1000);
        return;
      }
      if (ws.readyState !== ws.OPEN) {
        socket.destroy();
        return;
      }
      sockets[i] = socket;
      for (const frame of early.filter((f) => f.channel === 2 * i)) socket.write(frame.payload);
      socket.on('data', (chunk: Buffer) => send(ws, 2 * i, chunk, base64));
      const done = (): void => {
        if (ws.readyState === ws.OPEN) ws.close(1000);
      };
      socket.once('end', done);
      socket.once('close', done);
      socket.once('error', done);
    }),
  );
}
