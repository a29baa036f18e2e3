// Waits for a port that refuses now to listen, with bare TCP connects (each a SYN and the
// kernel's RST while nothing listens: ~0.6 ms of this process's CPU) rather than gRPC channels
// (~1.5 ms each, a client, its resolver and subchannel, then their garbage), which at one every
// 10 ms took CPU from a daemon booting on the same machine (bench:sdk). A connect that succeeds
// is closed at once: its caller dials the real channel next.
import { connect, type Socket } from 'node:net';

export interface ListenProbe {
  /** Pause after a refusal. */
  everyMs: number;
  /** One connect's bound (a SYN nobody answers): then it is given up and tried again. */
  attemptMs: number;
  /** False: stop (the caller was closed or no longer waits). */
  live: () => boolean;
  /** The port accepted a connection. */
  onListening: () => void;
  /** The probe's sockets while they are open, for the caller to destroy on close. */
  sockets: Set<Socket>;
}

/** Splits `host:port` or `[v6]:port`. Pure. */
export function hostAndPort(address: string): { host: string; port: number } {
  const at = address.lastIndexOf(':');
  return {
    host: address.slice(0, at).replace(/^\[(.*)\]$/, '$1'),
    port: Number(address.slice(at + 1)),
  };
}

/** Connects to `address` every `everyMs` until it accepts or `live()` is false. */
export function probeUntilListening(address: string, o: ListenProbe): void {
  const { host, port } = hostAndPort(address);
  const attempt = (): void => {
    if (!o.live()) return;
    const socket = connect({ host, port, timeout: o.attemptMs });
    o.sockets.add(socket);
    const end = (listening: boolean): void => {
      socket.destroy();
      o.sockets.delete(socket);
      if (!o.live()) return;
      if (listening) o.onListening();
      else setTimeout(attempt, o.everyMs).unref();
    };
    socket.once('connect', () => end(true));
    socket.once('error', () => end(false));
    socket.once('timeout', () => end(false));
  };
  attempt();
}
