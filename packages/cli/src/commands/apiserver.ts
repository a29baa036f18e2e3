// `agent-sandbox apiserver --data-dir DIR [--port N]`: the embedded API server on its own, over
// HTTPS on 127.0.0.1 with a generated CA and bearer token (ADR 0007). It keeps everything in DIR
// (apiserver.db, token, pki/, kubeconfig), writes DIR/kubeconfig, and runs in the foreground
// until SIGINT or SIGTERM, when it closes the store so the next start can open it.
import { buildCrds, convert } from '@agent-sandbox/api';
import {
  ApiServer,
  CredentialError,
  ensureCertificates,
  ensureServiceAccountKey,
  ensureToken,
  isStorageError,
  listen,
  openStore,
  startCompactor,
  writeKubeconfig,
  type CompactorHandle,
  type ListeningServer,
  type Store,
  type RequestFailureLog,
} from '@agent-sandbox/apiserver';
import { accessSync, closeSync, constants, mkdirSync, openSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { CommandIO } from '../io.ts';

/** kube-apiserver's secure port; used when free and --port is not given. */
export const DEFAULT_PORT = 6443;
const HOST = '127.0.0.1';

export interface ApiserverCommandOptions {
  dataDir: string;
  /** 0 picks a free port. @default DEFAULT_PORT, or a free port when 6443 is taken */
  port?: number;
}

export interface ApiserverRunOptions {
  /** Stops the server when aborted. @default aborted by the first SIGINT or SIGTERM */
  signal?: AbortSignal;
  /**
   * Called once the server serves and the kubeconfig is written; the embedded mode starts its
   * controllers here. The server stops only after the returned promise settles.
   */
  onReady?: (ready: { kubeconfig: string; url: string }) => Promise<void> | void;
}

/** Files the command keeps in the data dir. */
export function dataDirPaths(dataDir: string): {
  database: string;
  token: string;
  pki: string;
  kubeconfig: string;
} {
  return {
    database: join(dataDir, 'apiserver.db'),
    token: join(dataDir, 'token'),
    pki: join(dataDir, 'pki'),
    kubeconfig: join(dataDir, 'kubeconfig'),
  };
}

/** Parses --port: an integer 0..65535. */
export function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535)
    throw new Error(
      `--port must be an integer from 0 to 65535 (0 picks a free port), got ${value}`,
    );
  return port;
}

/** Registers `apiserver` on the program (main.ts). */
export function addApiserverCommand(
  program: Command,
  io: CommandIO,
  setExit: (code: number) => void,
): void {
  program
    .command('apiserver')
    .description(
      'run the embedded Kubernetes API server alone over HTTPS on 127.0.0.1; writes DIR/kubeconfig',
    )
    .requiredOption('--data-dir <dir>', 'where the database, CA, token and kubeconfig live')
    .addOption(
      new Option(
        '--port <n>',
        `port to serve on; 0 picks a free one (default: ${DEFAULT_PORT}, or a free port if taken)`,
      ).argParser((v) => {
        try {
          return parsePort(v);
        } catch (err: unknown) {
          throw new InvalidArgumentError(describe(err));
        }
      }),
    )
    .action(async (opts: ApiserverCommandOptions) => setExit(await runApiserver(opts, io)));
}

/** Runs until `signal` (default: SIGINT/SIGTERM) aborts; returns the exit code. */
export async function runApiserver(
  opts: ApiserverCommandOptions,
  io: CommandIO,
  run: ApiserverRunOptions = {},
): Promise<number> {
  const startedAt = performance.now();
  const dataDir = resolve(opts.dataDir);
  const paths = dataDirPaths(dataDir);
  const cleanup: (() => void | Promise<void>)[] = [];
  /** Undoes the steps taken so far, newest first, each once. */
  const shutdown = async (): Promise<void> => {
    for (let step = cleanup.pop(); step; step = cleanup.pop()) await step();
  };
  const stop: ProcessSignal = run.signal
    ? { signal: run.signal, dispose: () => undefined }
    : processSignal();
  const stopSignal = stop.signal;
  try {
    // The store first: its exclusive lock is what keeps a second server off this data dir, so
    // that server fails before it touches the token or certificates.
    ensureDataDir(dataDir);
    const store = openDataDirStore(paths.database, dataDir);
    cleanup.push(() => store.close());
    const token = ensureToken({ path: paths.token });
    const certs = await ensureCertificates({ dir: paths.pki });
    for (const file of certs.written) io.stderr(`wrote ${file}\n`);

    const server = new ApiServer({
      store,
      crds: buildCrds(),
      // The v1alpha1 ⇄ v1beta1 converter our CRDs name as their Webhook conversion.
      convert: (obj, toApiVersion) => ({ ...convert(obj, toApiVersion) }),
      token,
      // Tokens from TokenRequest stay valid across restarts; the CA becomes kube-root-ca.crt.
      serviceAccountKey: ensureServiceAccountKey({ path: join(paths.pki, 'sa.key') }),
      caCert: certs.caCert,
      onRequestError: logRequestFailure(io),
    });
    server.start();
    cleanup.push(() => server.stop());
    const compactor: CompactorHandle = startCompactor(store, {
      onError: (err) => io.stderr(`compaction failed: ${describe(err)}\n`),
    });
    cleanup.push(() => compactor.stop());

    const listening = await listenOnPort(
      server,
      opts.port,
      { cert: certs.cert, key: certs.key },
      io,
    );
    cleanup.push(() => listening.close());
    writeKubeconfig(paths.kubeconfig, { server: listening.url, caCert: certs.caCert, token });

    io.stdout(
      `serving ${listening.url} (data dir ${dataDir}; ready in ${Math.round(performance.now() - startedAt)} ms, ${Math.round(performance.now())} ms after process start)\n` +
        `kubeconfig: ${paths.kubeconfig}\n`,
    );
    const companions = run.onReady?.({ kubeconfig: paths.kubeconfig, url: listening.url });
    if (!stopSignal.aborted)
      await new Promise<void>((done) =>
        stopSignal.addEventListener('abort', () => done(), { once: true }),
      );
    await companions;
    await shutdown();
    io.stdout('stopped\n');
    return 0;
  } catch (err: unknown) {
    await shutdown();
    const message = failureMessage(err, dataDir);
    if (message === undefined) throw err;
    io.stderr(`error: ${message}\n`);
    return 1;
  } finally {
    stop.dispose();
  }
}

/** Creates the data dir (mode 0700) or fails naming it. */
function ensureDataDir(dataDir: string): void {
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  } catch (err: unknown) {
    throw new DataDirUnusable(
      `cannot create data dir ${dataDir}: ${describe(err)}; pick a writable --data-dir`,
      { cause: err },
    );
  }
  try {
    accessSync(dataDir, constants.W_OK);
  } catch (err: unknown) {
    throw new DataDirUnusable(
      `data dir ${dataDir} is not writable: ${describe(err)}; pick a writable --data-dir`,
      { cause: err },
    );
  }
}

class DataDirUnusable extends Error {}

function openDataDirStore(path: string, dataDir: string): Store {
  // The database holds Secrets: create it 0600 (SQLite gives its -wal and -shm files the same
  // mode). An empty file is what openStore treats as new.
  try {
    closeSync(openSync(path, 'a', 0o600));
  } catch (err: unknown) {
    throw new DataDirUnusable(`cannot create ${path}: ${describe(err)}`, { cause: err });
  }
  try {
    // The exclusive lock means no other connection ever writes, so a short busy timeout only
    // makes a second server on this data dir fail fast instead of after 5 s.
    return openStore({ path, busyTimeoutMs: 250 });
  } catch (err: unknown) {
    if (isStorageError(err, 'Locked'))
      throw new DataDirInUse(
        `another agent-sandbox apiserver is using ${dataDir}; stop it or pick another --data-dir`,
        { cause: err },
      );
    throw err;
  }
}

class DataDirInUse extends Error {}

async function listenOnPort(
  server: ApiServer,
  port: number | undefined,
  tls: { cert: string; key: string },
  io: CommandIO,
): Promise<ListeningServer> {
  try {
    return await listen(server, {
      port: port ?? DEFAULT_PORT,
      host: HOST,
      tls,
      onRequestError: logRequestFailure(io),
    });
  } catch (err: unknown) {
    if (!isAddressInUse(err)) throw err;
    if (port === undefined) {
      io.stderr(`port ${DEFAULT_PORT} is in use; picking a free port (pass --port to choose)\n`);
      return listen(server, { port: 0, host: HOST, tls, onRequestError: logRequestFailure(io) });
    }
    throw new PortInUse(
      `port ${port} on ${HOST} is already in use; stop what is using it, or pass another --port (0 picks a free one)`,
      { cause: err },
    );
  }
}

class PortInUse extends Error {}

/** One JSON line on stderr for each request that failed on the server's side (a 5xx). */
function logRequestFailure(io: CommandIO): RequestFailureLog {
  return (failure) =>
    io.stderr(
      `${JSON.stringify({ time: new Date().toISOString(), level: 'error', msg: 'request failed', ...failure })}\n`,
    );
}

function isAddressInUse(err: unknown): boolean {
  return err instanceof Error && 'code' in err && err.code === 'EADDRINUSE';
}

/** The one-line message for failures a user can fix; undefined for bugs (rethrown). */
function failureMessage(err: unknown, dataDir: string): string | undefined {
  if (
    err instanceof DataDirUnusable ||
    err instanceof DataDirInUse ||
    err instanceof PortInUse ||
    err instanceof CredentialError
  )
    return err.message;
  if (isStorageError(err)) return `data dir ${dataDir}: ${err.message}`;
  return undefined;
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export interface ProcessSignal {
  signal: AbortSignal;
  dispose(): void;
}

/** Aborted by the first SIGINT or SIGTERM; a second one gets Node's default (exit). */
export function processSignal(): ProcessSignal {
  const controller = new AbortController();
  const dispose = (): void => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
  const onSignal = (): void => {
    dispose();
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return { signal: controller.signal, dispose };
}
