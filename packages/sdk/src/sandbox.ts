// Sandbox: the handle a developer holds. Static entry points create, connect to and list
// sandboxes; instance methods drive one sandbox's lifecycle. Every call is one span.
import { isNotFound } from '@agent-sandbox/kube';
import { resolveConnection, type Connection } from './connection.ts';
import { createSandbox, waitForClaimReady, type Created } from './create.ts';
import { processEnv } from './env.ts';
import { NotFoundError, fromKubeError } from './errors.ts';
import { claimInfo, conditionOf, labelSelector, ownerKind, standaloneInfo } from './info.ts';
import type { Commands, Files, SandboxInfo } from './types.ts';
import { SandboxCommands } from './dataplane/commands.ts';
import { DaemonClients } from './dataplane/daemon-clients.ts';
import { SandboxEndpoint, dialSandbox, dialStartingDaemon } from './dataplane/endpoint.ts';
import { SandboxFiles } from './dataplane/files.ts';
import { claimTimeoutPatch, operatingModePatch, sandboxTimeoutPatch } from './objects.ts';
import type { ConnectionOptions, CreateSpec } from './options.ts';
import { SANDBOXES, SANDBOX_CLAIMS, type ClaimObject, type SandboxObject } from './resources.ts';
import { withSpan } from './tracing.ts';
import { checkDnsLabel, checkLabels, checkPort, checkTimeoutMs } from './validation.ts';
import { waitFor } from './wait.ts';

export type SandboxCreateOptions = CreateSpec & ConnectionOptions;

export interface SandboxConnectOptions extends ConnectionOptions {
  /** How long to wait for a claim to be bound to a Sandbox, in ms. @default 30_000 */
  readyTimeoutMs?: number;
  signal?: AbortSignal;
}

export interface SandboxListOptions extends ConnectionOptions {
  /** Only sandboxes carrying all these labels. @default {} (all) */
  labels?: Record<string, string>;
  signal?: AbortSignal;
}

export interface LifecycleWaitOptions {
  /** How long to wait for the new state, in ms. @default 120_000 */
  timeoutMs?: number;
  signal?: AbortSignal;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
const DEFAULT_LIFECYCLE_TIMEOUT_MS = 120_000;

export class Sandbox implements AsyncDisposable {
  /** What connect() takes: the claim's name, or the Sandbox's for an `image` sandbox. */
  readonly id: string;
  /** The Sandbox object (what the router calls X-Sandbox-ID). */
  readonly sandboxName: string;
  /** The SandboxClaim, unless the sandbox was created from an image. */
  readonly claimName: string | undefined;
  readonly namespace: string;
  /** Shell commands in the sandbox. */
  readonly commands: Commands;
  /** The sandbox's files. */
  readonly files: Files;
  readonly #conn: Connection;
  readonly #endpoint: SandboxEndpoint;

  private constructor(
    conn: Connection,
    sandboxName: string,
    claimName: string | undefined,
    podIPs: readonly string[] = [],
    clients?: DaemonClients,
  ) {
    this.#conn = conn;
    this.sandboxName = sandboxName;
    this.claimName = claimName;
    this.id = claimName ?? sandboxName;
    this.namespace = conn.namespace;
    this.#endpoint = new SandboxEndpoint(conn, sandboxName, podIPs, clients);
    this.commands = new SandboxCommands(this.#endpoint, conn.tracer);
    this.files = new SandboxFiles(this.#endpoint, conn.tracer);
  }

  /**
   * Creates a sandbox and resolves once it is Ready. The daemon's connection is dialled as soon
   * as the controller has chosen a warm Sandbox (before the claim is Ready), so the first command
   * finds it open.
   */
  static async create(options: SandboxCreateOptions): Promise<Sandbox> {
    const conn = connect(options);
    const source = options.warmPool ?? options.template ?? options.image;
    return withSpan(
      conn.tracer,
      'sandbox.create',
      { 'sandbox.namespace': conn.namespace, 'sandbox.source': String(source) },
      async (set, mark) => {
        const clients = new DaemonClients();
        const settled = new AbortController();
        const dialling = (): void => mark('sandbox.daemon.dialling');
        const created = await createSandbox(conn, options, {
          mark,
          onAssigned: (name) => dialSandbox(conn, name, clients, dialling),
          onAddress: (ips) => dialStartingDaemon(conn, ips, clients, settled.signal, dialling),
        })
          .catch(async (err: unknown) => {
            clients.close();
            await conn.kube.close();
            throw err;
          })
          .finally(() => settled.abort());
        set({
          'sandbox.name': created.sandboxName,
          ...(created.claimName ? { 'sandbox.claim.name': created.claimName } : {}),
        });
        const sandbox = new Sandbox(
          conn,
          created.sandboxName,
          created.claimName,
          created.podIPs,
          clients,
        );
        sandbox.#endpoint.dialAhead();
        return sandbox;
      },
    );
  }

  /** A handle on an existing sandbox, by claim name (or Sandbox name for `image` sandboxes). */
  static async connect(id: string, options: SandboxConnectOptions = {}): Promise<Sandbox> {
    checkDnsLabel('id', id);
    const conn = connect(options);
    return withSpan(
      conn.tracer,
      'sandbox.connect',
      { 'sandbox.namespace': conn.namespace, 'sandbox.id': id },
      async () => {
        try {
          const found = await resolveHandle(conn, id, options);
          return new Sandbox(conn, found.sandboxName, found.claimName);
        } catch (err: unknown) {
          await conn.kube.close();
          throw err;
        }
      },
    );
  }

  /** Every sandbox in the namespace (claims, and Sandboxes made from an image) with the labels. */
  static async list(options: SandboxListOptions = {}): Promise<SandboxInfo[]> {
    if (options.labels) checkLabels('labels', options.labels);
    const conn = connect(options);
    try {
      return await withSpan(
        conn.tracer,
        'sandbox.list',
        { 'sandbox.namespace': conn.namespace },
        () => listInfos(conn, options),
      );
    } finally {
      await conn.kube.close();
    }
  }

  /** Deletes a sandbox by id; false when there was none. */
  static async kill(id: string, options: ConnectionOptions = {}): Promise<boolean> {
    const sandbox = await Sandbox.connect(id, options).catch((err: unknown) => {
      if (err instanceof NotFoundError) return undefined;
      throw err;
    });
    if (!sandbox) return false;
    try {
      return await sandbox.kill();
    } finally {
      await sandbox.close();
    }
  }

  /** The current state, read fresh from the API server. */
  async info(options: { signal?: AbortSignal } = {}): Promise<SandboxInfo> {
    return this.#span('sandbox.info', async () => {
      const sandbox = await this.#getSandbox(options.signal);
      if (this.claimName === undefined) return standaloneInfo(sandbox);
      const claim = await this.#conn.kube
        .get<ClaimObject>(SANDBOX_CLAIMS, this.namespace, this.claimName, options)
        .catch((err: unknown) => Promise.reject(notFoundOr(err, this.id)));
      return claimInfo(claim, sandbox);
    });
  }

  /** Stops the Pod and keeps the disk and identity; resolves once the Pod is gone. */
  async suspend(options: LifecycleWaitOptions = {}): Promise<void> {
    return this.#span('sandbox.suspend', async () => {
      this.#endpoint.reset();
      await this.#patchSandbox(operatingModePatch('Suspended'), options.signal);
      await this.#waitSandbox(options, 'Suspended', (s) =>
        conditionOf(s, 'Suspended')?.status === 'True' ? true : undefined,
      );
    });
  }

  /** Starts the Pod again on the same disk; resolves once the sandbox is Ready. */
  async resume(options: LifecycleWaitOptions = {}): Promise<void> {
    return this.#span('sandbox.resume', async () => {
      this.#endpoint.reset();
      await this.#patchSandbox(operatingModePatch('Running'), options.signal);
      await this.#waitSandbox(options, 'Ready', (s) =>
        s.spec.operatingMode !== 'Suspended' && conditionOf(s, 'Ready')?.status === 'True'
          ? true
          : undefined,
      );
    });
  }

  /**
   * Deletes the sandbox (its claim, which takes the Sandbox with it). Resolves true when it was
   * deleted, false when it was already gone; does not wait for the Pod to end.
   */
  async kill(options: { signal?: AbortSignal } = {}): Promise<boolean> {
    return this.#span('sandbox.kill', async () => {
      const [ref, name] = this.claimName
        ? [SANDBOX_CLAIMS, this.claimName]
        : [SANDBOXES, this.sandboxName];
      try {
        await this.#conn.kube.delete(ref, this.namespace, name, {
          propagationPolicy: 'Background',
          ...options,
        });
        return true;
      } catch (err: unknown) {
        if (isNotFound(err)) return false;
        throw fromKubeError(err);
      }
    });
  }

  /** Sets the sandbox to expire `timeoutMs` from now (claim lifecycle.shutdownTime). */
  async setTimeout(timeoutMs: number, options: { signal?: AbortSignal } = {}): Promise<void> {
    checkTimeoutMs('timeoutMs', timeoutMs);
    return this.#span('sandbox.setTimeout', async () => {
      const at = new Date(Date.now() + timeoutMs);
      const kube = this.#conn.kube;
      try {
        if (this.claimName) {
          const claim = await kube.get<ClaimObject>(
            SANDBOX_CLAIMS,
            this.namespace,
            this.claimName,
            options,
          );
          await kube.patch(
            SANDBOX_CLAIMS,
            this.namespace,
            this.claimName,
            {
              type: 'merge',
              body: claimTimeoutPatch(claim, at),
            },
            options,
          );
        } else {
          await this.#patchSandbox(sandboxTimeoutPatch(at), options.signal);
        }
      } catch (err: unknown) {
        throw notFoundOr(err, this.id);
      }
    });
  }

  /**
   * The URL that reaches `port` in the sandbox, e.g. a web server it runs: through the router,
   * `http://<port>-<sandbox>.<namespace>.<sandboxDomain>[:routerPort]` (the router's per-sandbox
   * host names); in direct mode (no routerUrl), `http://<Pod IP>:<port>`.
   */
  async getHost(port: number): Promise<string> {
    checkPort('port', port);
    return this.#span('sandbox.getHost', () => this.#endpoint.url(port));
  }

  /** Releases this handle's connections; the sandbox keeps running. */
  async close(): Promise<void> {
    this.#endpoint.close();
    await this.#conn.kube.close();
  }

  /** `await using sandbox = await Sandbox.create(...)`: kills the sandbox at the end of scope. */
  async [Symbol.asyncDispose](): Promise<void> {
    try {
      await this.kill();
    } finally {
      await this.close();
    }
  }

  #span<T>(name: string, fn: () => Promise<T>): Promise<T> {
    return withSpan(
      this.#conn.tracer,
      name,
      {
        'sandbox.namespace': this.namespace,
        'sandbox.name': this.sandboxName,
        ...(this.claimName ? { 'sandbox.claim.name': this.claimName } : {}),
      },
      fn,
    );
  }

  async #getSandbox(signal: AbortSignal | undefined): Promise<SandboxObject> {
    return this.#conn.kube
      .get<SandboxObject>(SANDBOXES, this.namespace, this.sandboxName, signal ? { signal } : {})
      .catch((err: unknown) => Promise.reject(notFoundOr(err, this.id)));
  }

  async #patchSandbox(
    body: Record<string, unknown>,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    await this.#conn.kube
      .patch(
        SANDBOXES,
        this.namespace,
        this.sandboxName,
        { type: 'merge', body },
        signal ? { signal } : {},
      )
      .catch((err: unknown) => Promise.reject(notFoundOr(err, this.id)));
  }

  async #waitSandbox(
    options: LifecycleWaitOptions,
    what: string,
    check: (s: SandboxObject) => true | undefined,
  ): Promise<void> {
    const timeoutMs = options.timeoutMs ?? DEFAULT_LIFECYCLE_TIMEOUT_MS;
    checkTimeoutMs('timeoutMs', timeoutMs);
    await waitFor(
      this.#conn.kube,
      SANDBOXES,
      this.namespace,
      this.sandboxName,
      {
        timeoutMs,
        signal: options.signal,
        what: `Sandbox ${this.namespace}/${this.sandboxName} ${what}`,
      },
      check,
    );
  }
}

function connect(options: ConnectionOptions): Connection {
  return resolveConnection(options, options.hostEnv ?? processEnv());
}

function notFoundOr(err: unknown, id: string): unknown {
  const mapped = fromKubeError(err);
  if (mapped instanceof NotFoundError)
    return new NotFoundError(`sandbox ${id} not found: it was deleted or never existed`, {
      cause: err,
      status: 404,
    });
  return mapped;
}

async function resolveHandle(
  conn: Connection,
  id: string,
  options: SandboxConnectOptions,
): Promise<Created> {
  const make = (sandboxName: string, claimName: string | undefined): Created => ({
    sandboxName,
    claimName,
  });
  const signal = options.signal ? { signal: options.signal } : {};
  const claim = await conn.kube
    .get<ClaimObject>(SANDBOX_CLAIMS, conn.namespace, id, signal)
    .catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(fromKubeError(err))));
  if (claim) {
    const timeoutMs = options.readyTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    checkTimeoutMs('readyTimeoutMs', timeoutMs);
    const bound =
      claim.status?.sandbox?.name ||
      (await waitForClaimReady(conn, id, { timeoutMs, signal: options.signal }, false));
    return make(bound, id);
  }
  const sandbox = await conn.kube
    .get<SandboxObject>(SANDBOXES, conn.namespace, id, signal)
    .catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(fromKubeError(err))));
  if (!sandbox)
    throw new NotFoundError(
      `sandbox ${id} not found in namespace ${conn.namespace}: no SandboxClaim or Sandbox has that name (Sandbox.list() shows what exists)`,
      { status: 404 },
    );
  if (ownerKind(sandbox) === 'SandboxClaim') {
    const owner = sandbox.metadata.ownerReferences?.find((r) => r.controller === true);
    return make(id, owner?.name);
  }
  return make(id, undefined);
}

async function listInfos(conn: Connection, options: SandboxListOptions): Promise<SandboxInfo[]> {
  const selector = options.labels ? labelSelector(options.labels) : '';
  const query = {
    ...(selector ? { labelSelector: selector } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  };
  try {
    const [claims, sandboxes, standalone] = await Promise.all([
      conn.kube.list<ClaimObject>(SANDBOX_CLAIMS, conn.namespace, query),
      conn.kube.list<SandboxObject>(
        SANDBOXES,
        conn.namespace,
        options.signal ? { signal: options.signal } : {},
      ),
      conn.kube.list<SandboxObject>(SANDBOXES, conn.namespace, query),
    ]);
    const byName = new Map(sandboxes.items.map((s) => [s.metadata.name ?? '', s]));
    const out = claims.items.map((c) => claimInfo(c, byName.get(c.status?.sandbox?.name ?? '')));
    for (const s of standalone.items) if (ownerKind(s) === undefined) out.push(standaloneInfo(s));
    return out.sort((a, b) => a.id.localeCompare(b.id));
  } catch (err: unknown) {
    throw fromKubeError(err);
  }
}
