// The gRPC target of a daemon, resolved so that its TCP connection attempts can be ended. grpc-js
// dials with net.connect(address) and gives the caller no way to stop a connection whose SYN is
// never answered (a blackholed Pod IP): the socket stays in SYN_SENT for the kernel's ~2 min of
// retries after the handle closed, and holds the process open. Node's net.connect takes an
// AbortSignal among its options, and grpc-js passes the subchannel address object it was
// resolved to as those options, so the address this resolver answers carries the handle's
// signal (socket-credentials.ts aborts it on close). The scheme is registered once, globally in
// grpc-js, under a name no other code uses. A proxy from the environment (grpc_proxy) still
// replaces the target as before; its CONNECT request is then http's own, without the signal.
import { experimental, status, type ChannelOptions } from '@grpc/grpc-js';

const SCHEME = 'agent-sandbox-daemon';

/**
 * The channel option naming the connect signal. The prefix keeps it out of the subchannel's
 * arguments (grpc-js compares those to share subchannels; the address already holds the signal).
 */
const CONNECT_SIGNAL = `${experimental.SUBCHANNEL_ARGS_EXCLUDE_KEY_PREFIX}.agent-sandbox.connect-signal`;

type SignalledAddress = experimental.SubchannelAddress & { signal?: AbortSignal };

/** One static answer, like grpc-js's ip resolver: a re-resolution asked on every failure would spin. */
class DaemonResolver implements experimental.Resolver {
  readonly #target: experimental.GrpcUri;
  readonly #listener: experimental.ResolverListener;
  readonly #signal: AbortSignal | undefined;
  #answered = false;

  constructor(
    target: experimental.GrpcUri,
    listener: experimental.ResolverListener,
    options: ChannelOptions,
  ) {
    this.#target = target;
    this.#listener = listener;
    const signal: unknown = options[CONNECT_SIGNAL];
    this.#signal = signal instanceof AbortSignal ? signal : undefined;
  }

  updateResolution(): void {
    if (this.#answered) return;
    this.#answered = true;
    const hostPort = experimental.splitHostPort(this.#target.path);
    const answer =
      hostPort?.port === undefined
        ? experimental.statusOrFromError<experimental.Endpoint[]>({
            code: status.UNAVAILABLE,
            details: `daemon address ${this.#target.path} is not host:port`,
          })
        : experimental.statusOrFromValue([
            { addresses: [this.#address(hostPort.host, hostPort.port)] },
          ]);
    queueMicrotask(() => this.#listener(answer, {}, null, ''));
  }

  destroy(): void {
    this.#answered = false;
  }

  static getDefaultAuthority(target: experimental.GrpcUri): string {
    return target.path;
  }

  #address(host: string, port: number): SignalledAddress {
    return this.#signal ? { host, port, signal: this.#signal } : { host, port };
  }
}

let registered = false;

/** The target and channel options of a channel to the daemon at `address` (host:port). */
export function daemonChannel(
  address: string,
  connectSignal: AbortSignal,
): { target: string; options: ChannelOptions } {
  // On first use rather than at import: importing the SDK changes nothing in grpc-js.
  if (!registered) experimental.registerResolver(SCHEME, DaemonResolver);
  registered = true;
  return { target: `${SCHEME}:${address}`, options: { [CONNECT_SIGNAL]: connectSignal } };
}
