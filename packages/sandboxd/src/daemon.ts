// Composes the daemon: the REST server, the legacy runtime server and the gRPC server over one
// confinement root and one process limiter. Library code: the caller passes env and options.
import { mkdir } from 'node:fs/promises';
import { SENSITIVE_ENV_MARKERS } from '@agent-sandbox/protocol';
import { serveHttp } from './http-server.ts';
import { createLegacyHandler, legacyError, legacyFastRoutes } from './legacy-server.ts';
import { metadataEnv, withDefaults, type SandboxdOptions } from './options.ts';
import { resolveRoot } from './paths.ts';
import { ProcessLimiter } from './process-limiter.ts';
import { createRestHandler, restError } from './rest-server.ts';
import { serveGrpc } from './grpc/grpc-server.ts';
import { ProcessTable } from './process/process-table.ts';
import { dialNodeExec } from './node-exec/dialer.ts';
import { watchLoopStalls } from './loop-stalls.ts';

export interface SandboxdHandle {
  root: string;
  /** Base URLs of the listeners that are on (e.g. http://127.0.0.1:8080). */
  restUrl?: string;
  legacyUrl?: string;
  /** host:port of the gRPC listener. */
  grpcAddress?: string;
  /** Settles once the gRPC listener's warm-up Start has ended (at once without gRPC). */
  warmedUp: Promise<void>;
  /** Listeners left off because their port was taken (`skipBusyPorts`), e.g. `rest :8080`. */
  skipped: string[];
  /** Health turns 503, managed processes get SIGTERM then SIGKILL, listeners close. */
  close(): Promise<void>;
}

/** Starts every enabled listener; rejects (and closes what started) if one cannot bind. */
export async function startSandboxd(options: SandboxdOptions = {}): Promise<SandboxdHandle> {
  const o = withDefaults(options);
  await mkdir(o.rootDir, { recursive: true, mode: 0o755 });
  const root = await resolveRoot(o.rootDir);
  const limiter = new ProcessLimiter(o.maxProcesses);
  const table = new ProcessTable(o.retainProcesses);
  let shuttingDown = false;
  const closers: (() => Promise<void>)[] = [];
  const handle: SandboxdHandle = {
    root,
    skipped: [],
    warmedUp: Promise.resolve(),
    close: async () => {
      shuttingDown = true;
      // Managed processes: SIGTERM, then SIGKILL after 2 s (dataplane §4.1 shutdown order).
      const running = table.running();
      await Promise.all(running.map((p) => p.signal('SIGTERM')));
      if (running.some((p) => p.running)) {
        await new Promise((r) => setTimeout(r, 2000));
        await Promise.all(running.map((p) => p.signal('SIGKILL')));
      }
      await Promise.all(closers.map((c) => c()));
    },
  };
  // Injected into a workload's container, the workload's own use of a port wins.
  const bind = async <T>(what: string, port: number, start: () => Promise<T>) => {
    try {
      return await start();
    } catch (err: unknown) {
      const busy =
        (err as { code?: unknown }).code === 'EADDRINUSE' ||
        /EADDRINUSE|address already in use/i.test(String(err));
      if (!o.skipBusyPorts || !busy) throw err;
      handle.skipped.push(`${what} :${port}`);
      return undefined;
    }
  };
  if (o.logLevel === 'debug') {
    const stop = watchLoopStalls((msg, fields) => o.log(msg, { level: 'debug', ...fields }));
    closers.push(async () => stop());
  }
  try {
    // The node's exec channel first: it needs none of the listeners, and each exec the node hands
    // over from then on is a fork here instead of a runtime exec (ADR 0037).
    if (o.nodeExecSocket !== '') {
      const dialer = dialNodeExec({
        path: o.nodeExecSocket,
        limiter,
        tty: { ptyCommand: o.ptyCommand, sttyCommand: o.sttyCommand },
        log: o.log,
      });
      closers.push(async () => dialer.close());
    }
    if (o.restPort >= 0) {
      const rest = await bind('rest', o.restPort, () =>
        serveHttp(
          createRestHandler({
            root,
            metadataEnv: metadataEnv(o.env, o.metadataEnvPrefix, SENSITIVE_ENV_MARKERS),
            maxUploadBytes: o.maxUploadBytes,
            startedAtMs: o.now(),
            now: o.now,
            isShuttingDown: () => shuttingDown,
          }),
          { host: o.listenHost, port: o.restPort, onError: restError, log: o.log },
        ),
      );
      if (rest) {
        closers.push(rest.close);
        handle.restUrl = rest.url;
      }
    }
    if (o.legacyPort >= 0) {
      const legacyOptions = {
        root,
        env: o.env,
        defaultTimeoutSeconds: o.execTimeoutSeconds,
        maxUploadBytes: o.maxUploadBytes,
        limiter,
      };
      const legacy = await bind('legacy', o.legacyPort, () =>
        serveHttp(createLegacyHandler(legacyOptions), {
          host: o.listenHost,
          port: o.legacyPort,
          onError: legacyError,
          log: o.log,
          fastRoutes: legacyFastRoutes(legacyOptions),
        }),
      );
      if (legacy) {
        closers.push(legacy.close);
        handle.legacyUrl = legacy.url;
      }
    }
    if (o.grpcPort >= 0) {
      const grpc = await bind('grpc', o.grpcPort, () =>
        serveGrpc(
          {
            root,
            env: o.env,
            limiter,
            table,
            ptyCommand: o.ptyCommand,
            sttyCommand: o.sttyCommand,
            retainBytes: o.retainOutputBytes,
            chunkSize: o.streamChunkSize,
            ...(o.logLevel === 'debug'
              ? { debug: (msg, fields) => o.log(msg, { level: 'debug', ...fields }) }
              : {}),
          },
          o.listenHost,
          o.grpcPort,
          o.log,
        ),
      );
      if (grpc) {
        closers.push(grpc.close);
        handle.grpcAddress = grpc.address;
        handle.warmedUp = grpc.warmedUp;
      }
    }
  } catch (err: unknown) {
    await handle.close();
    throw err;
  }
  return handle;
}
