// The gRPC clients of one sandbox handle, by service and daemon address, and the channels dialled
// ahead of the first call: a new channel's first connection (TCP plus the HTTP/2 handshake) costs
// about as much as a command on a connected one, so Sandbox.create dials once it knows where the
// daemon is, while the control plane is still finishing the claim.
import { PROCESS_SERVICE, type WATCHER_SERVICE } from '@agent-sandbox/protocol';
import { connectivityState } from '@grpc/grpc-js';
import { daemonChannel } from './daemon-target.ts';
import { serviceClient, type ServiceClient } from './grpc.ts';
import type { Socket } from 'node:net';
import { probeUntilListening } from './listen-probe.ts';
import { SocketTrackingCredentials } from './socket-credentials.ts';

export type DaemonService = typeof PROCESS_SERVICE | typeof WATCHER_SERVICE;

export class DaemonClients {
  readonly #clients = new Map<string, ServiceClient>();
  /** address → performance.now() when its dialled channel was ready. */
  readonly #connectedAt = new Map<string, number>();
  /** address → the credentials of its channels, which keep their sockets (closed with them). */
  readonly #credentials = new Map<string, SocketTrackingCredentials>();
  /** Bumped by close(): a dialUntilListening of before stops (the handle may go on after it). */
  #closes = 0;
  /** The TCP connects of dialUntilListening's probes still open. */
  readonly #probes = new Set<Socket>();

  /** The client of `service` at `address` (host:port), made on first use. */
  client(address: string, service: DaemonService): ServiceClient {
    const key = `${service}@${address}`;
    let client = this.#clients.get(key);
    if (!client) {
      const creds = this.#credentialsOf(address);
      const { target, options } = daemonChannel(address, creds.connectSignal);
      client = serviceClient(target, service, creds, options);
      this.#clients.set(key, client);
    }
    return client;
  }

  /**
   * Starts connecting the process service's channel at `address` now, without waiting. A channel
   * whose connection fails (the daemon does not listen yet) is dropped at once: grpc-js would
   * hold it in back-off and fail the first call with no cause, where a fresh client connects
   * and a refusal is retried (refused.ts).
   */
  dial(address: string, timeoutMs: number, onRefused: () => void = () => undefined): void {
    const key = `${PROCESS_SERVICE}@${address}`;
    const client = this.client(address, PROCESS_SERVICE);
    const channel = client.getChannel();
    const deadline = Date.now() + timeoutMs;
    const follow = (state: connectivityState): void => {
      if (this.#clients.get(key) !== client) return; // closed or replaced meanwhile
      if (state === connectivityState.READY) {
        this.#connectedAt.set(address, performance.now());
        return;
      }
      if (state === connectivityState.TRANSIENT_FAILURE || state === connectivityState.SHUTDOWN) {
        this.#clients.delete(key);
        client.close();
        this.#dropUnusedCredentials(address);
        if (state === connectivityState.TRANSIENT_FAILURE) onRefused();
        return;
      }
      channel.watchConnectivityState(state, deadline, (err) => {
        if (!err) follow(channel.getConnectivityState(false));
      });
    };
    follow(channel.getConnectivityState(true));
  }

  /**
   * Dials `address` once it listens, and probes again if that channel fails, until a channel is
   * ready, `until` aborts or close() is called (a later reset's included): for a daemon that
   * starts a moment from now (a cold Sandbox's, once its Pod runs), so the channel opens as soon
   * as it listens rather than after the claim's Ready has come round. Probed every `everyMs`
   * (listen-probe.ts): Ready comes ~25 ms after the daemon listens, so 20 finds it first at half
   * the CPU of 10.
   */
  dialUntilListening(address: string, timeoutMs: number, until: AbortSignal, everyMs = 20): void {
    const closes = this.#closes;
    const live = (): boolean => !until.aborted && closes === this.#closes;
    const probe = (): void =>
      probeUntilListening(address, {
        everyMs,
        attemptMs: Math.min(timeoutMs, 1000),
        live,
        onListening: () => this.dial(address, timeoutMs, () => live() && probe()),
        sockets: this.#probes,
      });
    until.addEventListener('abort', () => this.#endProbes(), { once: true });
    probe();
  }

  /** When a channel dialled ahead to `address` was ready (performance.now()), if it was. */
  connectedAt(address: string): number | undefined {
    return this.#connectedAt.get(address);
  }

  /** Closes the clients of every other address (a choice the control plane changed). */
  keepOnly(address: string): void {
    this.#closeWhere((a) => a !== address);
  }

  /**
   * Closes every client, and ends the connections no daemon has answered yet, a SYN never
   * answered included: grpc-js would leave those open (socket-credentials.ts, daemon-target.ts).
   */
  close(): void {
    this.#closes++;
    this.#endProbes();
    this.#closeWhere(() => true);
  }

  #closeWhere(drop: (address: string) => boolean): void {
    for (const [key, client] of this.#clients)
      if (drop(key.slice(key.indexOf('@') + 1))) {
        client.close();
        this.#clients.delete(key);
      }
    for (const [address, creds] of this.#credentials)
      if (drop(address)) {
        creds.close();
        this.#credentials.delete(address);
      }
    for (const a of this.#connectedAt.keys()) if (drop(a)) this.#connectedAt.delete(a);
  }

  /** Destroys dialUntilListening's open probes (close(), or the create that wanted them ended). */
  #endProbes(): void {
    for (const socket of this.#probes) socket.destroy();
    this.#probes.clear();
  }

  /**
   * A failed attempt's credentials go with it when no other client at the address holds them:
   * each connect left its listener on their signal (Node's socket never removes it), and a
   * channel refused again and again would pile them up.
   */
  #dropUnusedCredentials(address: string): void {
    for (const key of this.#clients.keys()) if (key.endsWith(`@${address}`)) return;
    this.#credentials.get(address)?.close();
    this.#credentials.delete(address);
  }

  #credentialsOf(address: string): SocketTrackingCredentials {
    let creds = this.#credentials.get(address);
    if (!creds) {
      creds = new SocketTrackingCredentials();
      this.#credentials.set(address, creds);
    }
    return creds;
  }
}
