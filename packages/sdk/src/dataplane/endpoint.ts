// Where one sandbox's daemon is: through the router (REST with X-Sandbox-* headers) or on the Pod
// IP (REST and gRPC directly). The Pod IP is read from the Sandbox when first needed and forgotten
// when the sandbox is suspended or resumed, or a connection to it fails.
import { ROUTER_DEFAULT_NAMESPACE, RouterHeader } from '@agent-sandbox/protocol';
import type { Connection } from '../connection.ts';
import { NotReadyError, UnsupportedError, fromKubeError } from '../errors.ts';
import { SANDBOXES, type SandboxObject } from '../resources.ts';
import { DaemonClients, type DaemonService } from './daemon-clients.ts';
import type { DaemonTarget } from './grpc.ts';

export interface RestTarget {
  baseUrl: string;
  headers: Record<string, string>;
  /** How long a call may wait for the daemon's answer (ConnectionOptions.connectTimeoutMs). */
  connectTimeoutMs: number;
}

/** A gRPC client bound to one daemon, with what error messages name. */
export interface GrpcTarget extends DaemonTarget {
  /** performance.now() when a channel dialled ahead (dialAhead) was ready, if it was. */
  connectedAt: number | undefined;
}

export class SandboxEndpoint {
  readonly #conn: Connection;
  readonly #sandboxName: string;
  #podIp: Promise<string> | undefined;
  readonly #clients: DaemonClients;

  /**
   * @param podIPs what the caller already read (the Ready claim's status): the first call then
   * needs no read of the Sandbox; a stale one is forgotten like any other (reset()).
   * @param clients channels the caller may have dialled already (dialSandbox).
   */
  constructor(
    conn: Connection,
    sandboxName: string,
    podIPs: readonly string[] = [],
    clients = new DaemonClients(),
  ) {
    this.#conn = conn;
    this.#sandboxName = sandboxName;
    this.#clients = clients;
    const ip = pickIp(podIPs);
    if (ip) {
      this.#podIp = Promise.resolve(ip);
      clients.keepOnly(this.#grpcAddress(ip));
    }
  }

  /**
   * Starts the daemon's gRPC connection now when the Pod IP is known and no router is used, so
   * the first command finds it open; never fails (the first call reports what went wrong).
   */
  dialAhead(): void {
    if (this.#conn.dataPlane.routerUrl || !this.#podIp) return;
    void this.#podIp.then(
      (ip) => this.#clients.dial(this.#grpcAddress(ip), this.#conn.dataPlane.connectTimeoutMs),
      () => undefined,
    );
  }

  get sandboxName(): string {
    return this.#sandboxName;
  }

  /** The REST API (`/v1/...`). */
  async rest(): Promise<RestTarget> {
    const { routerUrl, restPort, connectTimeoutMs } = this.#conn.dataPlane;
    if (routerUrl)
      return {
        baseUrl: routerUrl,
        headers: {
          [RouterHeader.id]: this.#sandboxName,
          [RouterHeader.namespace]: this.#conn.namespace || ROUTER_DEFAULT_NAMESPACE,
          [RouterHeader.port]: String(restPort),
        },
        connectTimeoutMs,
      };
    const baseUrl = `http://${hostPart(await this.#ip())}:${restPort}`;
    return { baseUrl, headers: {}, connectTimeoutMs };
  }

  /**
   * The URL of `port` in the sandbox: with a router, its per-sandbox host name
   * (`<port>-<sandbox>.<namespace>.<domain>` on the router's scheme and port, as the router's
   * host routing expects); without one, the Pod IP and port.
   */
  async url(port: number): Promise<string> {
    const { routerUrl, sandboxDomain } = this.#conn.dataPlane;
    if (!routerUrl) return `http://${hostPart(await this.#ip())}:${port}`;
    if (!sandboxDomain)
      throw new UnsupportedError(
        `getHost(${port}) through the router needs the router's sandbox domain: pass sandboxDomain or set AGENT_SANDBOX_SANDBOX_DOMAIN`,
      );
    const router = new URL(routerUrl);
    const host = `${port}-${this.#sandboxName}.${this.#conn.namespace}.${sandboxDomain}`;
    return `${router.protocol}//${host}${router.port ? `:${router.port}` : ''}`;
  }

  /** A gRPC client of `service` on the Pod IP (the router carries no gRPC). */
  async grpc(service: DaemonService, what: string): Promise<GrpcTarget> {
    if (this.#conn.dataPlane.routerUrl)
      throw new UnsupportedError(
        `${what} needs sandboxd's gRPC API, which the router does not carry; run where the Pod IP is reachable (no routerUrl / AGENT_SANDBOX_ROUTER_URL)`,
      );
    const address = this.#grpcAddress(await this.#ip());
    return {
      client: this.#clients.client(address, service),
      address,
      sandboxName: this.#sandboxName,
      connectTimeoutMs: this.#conn.dataPlane.connectTimeoutMs,
      connectedAt: this.#clients.connectedAt(address),
    };
  }

  /** Forget the Pod IP (and the clients bound to it): the next call reads it again. */
  reset(): void {
    this.#podIp = undefined;
    this.#clients.close();
  }

  #grpcAddress(ip: string): string {
    return `${hostPart(ip)}:${this.#conn.dataPlane.grpcPort}`;
  }

  close(): void {
    this.reset();
  }

  #ip(): Promise<string> {
    this.#podIp ??= this.#readIp().catch((err: unknown) => {
      this.#podIp = undefined;
      throw err;
    });
    return this.#podIp;
  }

  #readIp(): Promise<string> {
    return readPodIp(this.#conn, this.#sandboxName);
  }
}

/**
 * Dials the daemon of a Sandbox the control plane has chosen but not yet reported Ready (a warm
 * claim's adoption in flight), into `clients`, for the endpoint made at Ready to reuse. Best
 * effort: without a router only, and a failed read or connection is forgotten.
 */
export function dialSandbox(
  conn: Connection,
  sandboxName: string,
  clients: DaemonClients,
  onDial: () => void = () => undefined,
): void {
  if (conn.dataPlane.routerUrl) return;
  void readPodIp(conn, sandboxName).then(
    (ip) => {
      onDial();
      clients.dial(`${hostPart(ip)}:${conn.dataPlane.grpcPort}`, conn.dataPlane.connectTimeoutMs);
    },
    () => undefined,
  );
}

/**
 * Dials the daemon at the Pod IPs a claim reported before it was Ready (a cold Sandbox whose Pod
 * runs while its daemon starts), again while it refuses, until `until` aborts (the create
 * settled; the endpoint's dialAhead takes over). Without a router only.
 */
export function dialStartingDaemon(
  conn: Connection,
  podIPs: readonly string[],
  clients: DaemonClients,
  until: AbortSignal,
  onDial: () => void = () => undefined,
): void {
  const ip = pickIp(podIPs);
  if (conn.dataPlane.routerUrl || !ip) return;
  onDial();
  const address = `${hostPart(ip)}:${conn.dataPlane.grpcPort}`;
  clients.dialUntilListening(address, conn.dataPlane.connectTimeoutMs, until);
}

async function readPodIp(conn: Connection, sandboxName: string): Promise<string> {
  const sandbox = await conn.kube
    .get<SandboxObject>(SANDBOXES, conn.namespace, sandboxName)
    .catch((err: unknown) => Promise.reject(fromKubeError(err)));
  const ip = pickIp(sandbox.status?.podIPs ?? []);
  if (!ip)
    throw new NotReadyError(
      `sandbox ${sandboxName} has no Pod IP yet${sandbox.spec.operatingMode === 'Suspended' ? ' (it is suspended: resume() it)' : ''}`,
    );
  return ip;
}

/** IPv4 first, as the rest of the node does. */
function pickIp(ips: readonly string[]): string | undefined {
  return ips.find((i) => !i.includes(':')) ?? ips[0];
}

function hostPart(ip: string): string {
  return ip.includes(':') ? `[${ip}]` : ip;
}
