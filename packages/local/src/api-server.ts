// The embedded API server over a data dir: SQLite store, generated CA and serving certificate,
// bearer token and service-account key (ADR 0007), our CRDs with the in-process v1alpha1
// converter, a compactor, HTTPS on 127.0.0.1 and DIR/kubeconfig. Every failure a user can fix is
// a LocalError naming the fix; the steps taken are undone, newest first, on failure and on stop.
import { buildCrds, convert } from '@agent-sandbox/api';
import {
  ApiServer,
  CredentialError,
  FileAuditLog,
  ensureCertificates,
  ensureServiceAccountKey,
  enforcing,
  ensureToken,
  isStorageError,
  inProcessFetch,
  listen,
  openStore,
  startCompactor,
  writeKubeconfig,
  type InProcessFetch,
  type ListeningServer,
  type ListenOptions,
  type PodSecurityLevel,
  type PodStreams,
  type RequestFailure,
  type Store,
  type TokenUser,
} from '@agent-sandbox/apiserver';
import type { KubeConfig } from '@agent-sandbox/kube';
import { accessSync, closeSync, constants, mkdirSync, openSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { LocalError } from './errors.ts';

/** The slow- and greedy-client bounds the API server serves with (node-server's). */
export type ServingLimits = Pick<ListenOptions, 'requestTimeoutMs' | 'inflight'>;

/** kube-apiserver's secure port; used when free and no port is given. */
export const DEFAULT_PORT = 6443;
const HOST = '127.0.0.1';

/** What happened on the way up, for the entry point to report (library code prints nothing). */
export type ApiServerEvent =
  | { type: 'file-written'; path: string }
  | { type: 'port-taken'; port: number }
  | { type: 'compaction-failed'; error: unknown }
  /** An audit event could not be written (it is dropped; the request is served). */
  | { type: 'audit-failed'; error: unknown }
  /** A request that failed on the server's side (a 5xx). */
  | { type: 'request-failed'; failure: RequestFailure };

export interface EmbeddedApiServerOptions {
  /** Holds apiserver.db, token, pki/ and kubeconfig; created (0700) if missing. */
  dataDir: string;
  /** 0 picks a free port. @default DEFAULT_PORT, or a free port when it is taken */
  port?: number;
  /**
   * Pod Security level enforced, warned and audited in namespaces without
   * pod-security.kubernetes.io labels; sandboxes run untrusted code (ADR 0026).
   * @default 'baseline'
   */
  podSecurity?: PodSecurityLevel;
  /** Serves pods/log, exec, attach and portforward (the embedded mode's NodeStreamProxy). */
  podStreams?: PodStreams;
  /** Static tokens of in-process components (identities.ts); never written to the data dir. */
  users?: readonly TokenUser[];
  /**
   * The audit log of writes, DIR/audit.log as JSON lines (ADR 0031); `false` turns it off.
   * @default on, rotated at 10 MiB with 3 backups
   */
  audit?: false | { maxBytes?: number; maxBackups?: number };
  /**
   * kube-apiserver's --request-timeout and --max-(mutating-)requests-inflight; 0 turns one off.
   * @default kube's: 60 s, 400 reads and 200 writes at once
   */
  limits?: ServingLimits;
  onEvent?: (event: ApiServerEvent) => void;
}

export interface EmbeddedApiServer {
  /** e.g. https://127.0.0.1:6443 */
  url: string;
  /** The absolute data dir. */
  dataDir: string;
  /** DIR/kubeconfig, written once serving. */
  kubeconfigPath: string;
  /** The same credentials in memory, for in-process clients. */
  kubeConfig: KubeConfig;
  /** The handler without a socket, for in-process clients (`new KubeClient({ config, fetch })`). */
  fetch: InProcessFetch;
  /** Stops serving and closes the store (so the next start can open it). Idempotent. */
  stop(): Promise<void>;
}

/** Files kept in the data dir. */
export function dataDirPaths(dataDir: string): {
  database: string;
  token: string;
  pki: string;
  kubeconfig: string;
  audit: string;
} {
  return {
    audit: join(dataDir, 'audit.log'),
    database: join(dataDir, 'apiserver.db'),
    token: join(dataDir, 'token'),
    pki: join(dataDir, 'pki'),
    kubeconfig: join(dataDir, 'kubeconfig'),
  };
}

/** Serves the data dir; rejects with LocalError for what a user can fix. */
export async function startEmbeddedApiServer(
  options: EmbeddedApiServerOptions,
): Promise<EmbeddedApiServer> {
  const dataDir = resolve(options.dataDir);
  const paths = dataDirPaths(dataDir);
  const emit = options.onEvent ?? (() => undefined);
  const cleanup: (() => void | Promise<void>)[] = [];
  /** Undoes the steps taken so far, newest first, each once. */
  const shutdown = async (): Promise<void> => {
    for (let step = cleanup.pop(); step; step = cleanup.pop()) await step();
  };
  try {
    // The store first: its exclusive lock is what keeps a second server off this data dir, so
    // that server fails before it touches the token or certificates.
    ensureDataDir(dataDir);
    const store = openDataDirStore(paths.database, dataDir);
    cleanup.push(() => store.close());
    const token = ensureToken({ path: paths.token });
    const certs = await ensureCertificates({ dir: paths.pki });
    for (const path of certs.written) emit({ type: 'file-written', path });
    const auditOptions = options.audit ?? {};
    const audit =
      auditOptions === false
        ? undefined
        : new FileAuditLog({
            path: paths.audit,
            ...auditOptions,
            onError: (error) => emit({ type: 'audit-failed', error }),
          });
    if (audit) cleanup.push(() => audit.close());

    const server = new ApiServer({
      store,
      crds: buildCrds(),
      // The v1alpha1 ⇄ v1beta1 converter our CRDs name as their Webhook conversion.
      convert: (obj, toApiVersion) => ({ ...convert(obj, toApiVersion) }),
      token,
      ...(options.users ? { users: options.users } : {}),
      ...(audit ? { audit } : {}),
      // Tokens from TokenRequest stay valid across restarts; the CA becomes kube-root-ca.crt.
      serviceAccountKey: ensureServiceAccountKey({ path: join(paths.pki, 'sa.key') }),
      caCert: certs.caCert,
      podSecurity: enforcing(options.podSecurity ?? 'baseline'),
      ...(options.podStreams ? { podStreams: options.podStreams } : {}),
      onRequestError: (failure) => emit({ type: 'request-failed', failure }),
    });
    server.start();
    cleanup.push(() => server.stop());
    const compactor = startCompactor(store, {
      onError: (error) => emit({ type: 'compaction-failed', error }),
    });
    cleanup.push(() => compactor.stop());

    const listening = await listenOnPort(server, options, certs, emit);
    cleanup.push(() => listening.close());
    writeKubeconfig(paths.kubeconfig, { server: listening.url, caCert: certs.caCert, token });
    return {
      url: listening.url,
      dataDir,
      kubeconfigPath: paths.kubeconfig,
      kubeConfig: {
        server: listening.url,
        namespace: 'default',
        caPem: certs.caCert,
        insecureSkipTlsVerify: false,
        token,
      },
      fetch: inProcessFetch(server, options.limits ?? {}),
      stop: shutdown,
    };
  } catch (err: unknown) {
    await shutdown();
    throw asLocalError(err, dataDir);
  }
}

/** Creates the data dir (mode 0700) or fails naming it. */
function ensureDataDir(dataDir: string): void {
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  } catch (err: unknown) {
    throw new LocalError(
      'DataDirUnusable',
      `cannot create data dir ${dataDir}: ${describe(err)}; pick a writable --data-dir`,
      { cause: err },
    );
  }
  try {
    accessSync(dataDir, constants.W_OK);
  } catch (err: unknown) {
    throw new LocalError(
      'DataDirUnusable',
      `data dir ${dataDir} is not writable: ${describe(err)}; pick a writable --data-dir`,
      { cause: err },
    );
  }
}

function openDataDirStore(path: string, dataDir: string): Store {
  // The database holds Secrets: create it 0600 (SQLite gives its -wal and -shm files the same
  // mode). An empty file is what openStore treats as new.
  try {
    closeSync(openSync(path, 'a', 0o600));
  } catch (err: unknown) {
    throw new LocalError('DataDirUnusable', `cannot create ${path}: ${describe(err)}`, {
      cause: err,
    });
  }
  try {
    // The exclusive lock means no other connection ever writes, so a short busy timeout only
    // makes a second server on this data dir fail fast instead of after 5 s.
    return openStore({ path, busyTimeoutMs: 250 });
  } catch (err: unknown) {
    if (isStorageError(err, 'Locked'))
      throw new LocalError(
        'DataDirInUse',
        `another agent-sandbox apiserver is using ${dataDir}; stop it or pick another --data-dir`,
        { cause: err },
      );
    throw err;
  }
}

async function listenOnPort(
  server: ApiServer,
  options: Pick<EmbeddedApiServerOptions, 'port' | 'limits'>,
  tls: { cert: string; key: string },
  emit: (event: ApiServerEvent) => void,
): Promise<ListeningServer> {
  const { port } = options;
  const serving: ListenOptions = {
    ...options.limits,
    host: HOST,
    tls: { cert: tls.cert, key: tls.key },
    onRequestError: (failure: RequestFailure): void => emit({ type: 'request-failed', failure }),
  };
  try {
    return await listen(server, { ...serving, port: port ?? DEFAULT_PORT });
  } catch (err: unknown) {
    if (!isAddressInUse(err)) throw err;
    if (port === undefined) {
      emit({ type: 'port-taken', port: DEFAULT_PORT });
      return listen(server, { ...serving, port: 0 });
    }
    throw new LocalError(
      'PortInUse',
      `port ${port} on ${HOST} is already in use; stop what is using it, or pass another --port (0 picks a free one)`,
      { cause: err },
    );
  }
}

function isAddressInUse(err: unknown): boolean {
  return err instanceof Error && 'code' in err && err.code === 'EADDRINUSE';
}

/** Failures a user can fix as LocalError; anything else (a bug) unchanged. */
function asLocalError(err: unknown, dataDir: string): unknown {
  if (err instanceof LocalError) return err;
  if (err instanceof CredentialError)
    return new LocalError('Credentials', err.message, { cause: err });
  if (isStorageError(err))
    return new LocalError('DataDirStorage', `data dir ${dataDir}: ${err.message}`, { cause: err });
  return err;
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
