// Insecure gRPC channel credentials that keep the sockets their channels connect, so closing a
// handle can end a connection the daemon never answered. grpc-js has no HTTP/2 handshake
// timeout and never aborts a connection attempt when its channel is closed: a TCP connection
// whose server never sends SETTINGS stays open, unseen, for as long as the process lives
// (issue 13). The secure connector is grpc-js's hook between TCP connect and the handshake; the
// TCP connect before it is ended through connectSignal (daemon-target.ts).
import { ChannelCredentials, credentials, type experimental } from '@grpc/grpc-js';
import type { Socket } from 'node:net';

export class SocketTrackingCredentials extends ChannelCredentials {
  readonly #sockets = new Set<Socket>();
  readonly #connecting = new AbortController();
  #closed = false;

  /**
   * Aborted by close() unless a connection was answered: ends a TCP connect still under way,
   * which never reaches the connector (daemon-target.ts puts it on the address grpc-js dials).
   */
  get connectSignal(): AbortSignal {
    return this.#connecting.signal;
  }

  _isSecure(): boolean {
    return false;
  }

  /**
   * Only itself: grpc-js shares a connection between channels whose credentials are equal, and
   * one handle's close must not end another's connection.
   */
  _equals(other: ChannelCredentials): boolean {
    return other === this;
  }

  _createSecureConnector(): experimental.SecureConnector {
    return {
      connect: (socket) => {
        // A TCP connection that completes after close (its SYN was answered late) is not used.
        if (this.#closed) {
          socket.destroy();
          return Promise.reject(new Error('channel closed before its connection was made'));
        }
        this.#sockets.add(socket);
        socket.once('close', () => this.#sockets.delete(socket));
        return Promise.resolve({ socket, secure: false });
      },
      waitForReady: () => Promise.resolve(),
      getCallCredentials: () => credentials.createEmpty(),
      destroy: () => undefined,
    };
  }

  /**
   * Ends every connection the server has sent nothing on (no HTTP/2 answer yet), any still being
   * made, and any made from now on. A connection that was answered is left to grpc-js, which
   * closes it gracefully and lets streams still running on it finish.
   */
  close(): void {
    this.#closed = true;
    const answered = [...this.#sockets].some((s) => s.bytesRead > 0);
    // The signal would end an answered socket too (Node's socket keeps listening to it). The
    // channels of one handle and address share one subchannel, so while a connection is
    // answered there is no other attempt under way.
    if (!answered) this.#connecting.abort();
    for (const socket of this.#sockets) if (socket.bytesRead === 0) socket.destroy();
  }
}
