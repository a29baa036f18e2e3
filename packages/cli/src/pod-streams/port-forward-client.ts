// The client side of port-forward over WebSocket (v4.channel.k8s.io): one WebSocket per local
// connection, data on channel 0 and errors on channel 1, each channel opened by the server with
// the port as 2-byte little-endian (dropped here), as client-node and the Python client speak it.
import type { KubeConfig } from '@agent-sandbox/kube';
import type { Socket } from 'node:net';
import { openWebSocket, podPath, type PodRef } from './kube-transport.ts';

const PROTOCOLS = ['v4.channel.k8s.io'];

/** Pipes one local connection to `port` of the Pod until either side ends. */
export async function forwardConnection(
  c: KubeConfig,
  pod: PodRef,
  port: number,
  socket: Socket,
  onError: (message: string) => void,
): Promise<void> {
  socket.pause();
  const ws = await openWebSocket(
    c,
    podPath(pod, 'portforward', new URLSearchParams({ ports: String(port) })),
    PROTOCOLS,
    (ws) => {
      const opened = new Set<number>();
      ws.on('message', (data: Buffer, isBinary: boolean) => {
        if (!isBinary || data.length === 0) return;
        const channel = data[0] as number;
        if (!opened.has(channel)) {
          opened.add(channel); // the first frame of a channel is the port number
          return;
        }
        if (channel === 0) socket.write(data.subarray(1));
        else if (channel === 1 && data.length > 1) onError(data.subarray(1).toString('utf8'));
      });
      return ws;
    },
  ).catch((err: unknown) => {
    socket.destroy();
    throw err;
  });
  socket.on('data', (chunk: Buffer) => {
    if (ws.readyState !== ws.OPEN) return;
    const out = Buffer.allocUnsafe(chunk.length + 1);
    out[0] = 0;
    out.set(chunk, 1);
    ws.send(out);
  });
  await new Promise<void>((resolve) => {
    const done = (): void => {
      socket.destroy();
      ws.close();
      resolve();
    };
    socket.once('close', done);
    socket.once('error', done);
    ws.once('close', done);
    ws.once('error', done);
    socket.resume();
  });
}
