// Slowloris clients for tests and benchmarks: sockets that send a request head one byte at a
// time and never finish it, each holding a connection the server must bound (its header
// deadline) without letting them slow anyone else down.
import type { Socket } from 'node:net';
import { openSocket } from './raw-http.ts';

export interface SlowlorisHandle {
  /** How many of the sockets the server has not closed yet. */
  open(): number;
  /** Stops writing and closes every socket. */
  stop(): void;
}

/** Opens `count` sockets to `url` (TLS for https) that each write one byte every `intervalMs`. */
export function slowloris(url: string, count: number, intervalMs = 100): SlowlorisHandle {
  const head =
    'GET /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\n' +
    'X-Pad: a\r\n'.repeat(1000);
  const sockets: { socket: Socket; at: number; closed: boolean }[] = [];
  for (let i = 0; i < count; i++) {
    const entry = { socket: openSocket(url), at: 0, closed: false };
    entry.socket.on('error', () => undefined);
    entry.socket.on('close', () => (entry.closed = true));
    sockets.push(entry);
  }
  const timer = setInterval(() => {
    for (const e of sockets) {
      if (e.closed || !e.socket.writable) continue;
      e.socket.write(head[e.at % head.length] as string);
      e.at += 1;
    }
  }, intervalMs);
  return {
    open: () => sockets.filter((e) => !e.closed).length,
    stop: () => {
      clearInterval(timer);
      sockets.forEach((e) => e.socket.destroy());
    },
  };
}
