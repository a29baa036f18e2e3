// Runs @agent-sandbox/local's embedded mode in the foreground for `start` and `apiserver`: reports
// what happens on the way up, prints the serving line and the kubeconfig path, waits for the stop
// signal (or a component failing), stops everything and prints `stopped`.
import {
  LocalError,
  startEmbedded,
  type ApiServerEvent,
  type EmbeddedApiServerOptions,
  type EmbeddedOptions,
  type ServingLimits,
} from '@agent-sandbox/local';
import { performance } from 'node:perf_hooks';
import { failureOf } from '../errors.ts';
import type { PodSecurityFlag } from '../flags/pod-security.ts';
import { withStreams, type CommandIO } from '../io.ts';

/** The API server flags `apiserver`, `start` and `up` share. */
export interface ApiServerFlags {
  /** 0 picks a free port. @default DEFAULT_PORT, or a free port when it is taken */
  port?: number;
  /** @default 'baseline' (startEmbeddedApiServer's default) */
  podSecurity?: PodSecurityFlag;
  /** false: no audit log (--no-audit-log). @default true */
  auditLog?: boolean;
  /** --request-timeout in milliseconds; 0 turns it off. @default 60000 */
  requestTimeout?: number;
  /** --max-requests-inflight; 0: no limit. @default 400 */
  maxRequestsInflight?: number;
  /** --max-mutating-requests-inflight; 0: no limit. @default 200 */
  maxMutatingRequestsInflight?: number;
}

/** The embedded API server's options from the shared flags. */
export function apiServerOptions(dataDir: string, flags: ApiServerFlags): EmbeddedApiServerOptions {
  return {
    dataDir,
    ...(flags.port !== undefined ? { port: flags.port } : {}),
    ...(flags.podSecurity !== undefined ? { podSecurity: flags.podSecurity } : {}),
    ...(flags.auditLog === false ? { audit: false as const } : {}),
    limits: servingLimits(flags),
  };
}

/** The limit flags given, as the API server's serving limits (absent ones keep kube's defaults). */
function servingLimits(flags: ApiServerFlags): ServingLimits {
  const inflight: NonNullable<ServingLimits['inflight']> = {};
  if (flags.maxRequestsInflight !== undefined) inflight.readonly = flags.maxRequestsInflight;
  if (flags.maxMutatingRequestsInflight !== undefined)
    inflight.mutating = flags.maxMutatingRequestsInflight;
  return {
    inflight,
    ...(flags.requestTimeout !== undefined ? { requestTimeoutMs: flags.requestTimeout } : {}),
  };
}

export interface ServeRunOptions {
  /** Stops the mode when aborted. @default the IO's stop signal (SIGINT/SIGTERM) */
  signal?: AbortSignal;
  /** Runs once everything serves, before waiting (e.g. `up` writes endpoints.json). */
  onServing?: (
    apiServer: { url: string; dataDir: string; kubeconfigPath: string },
    endpoints: Readonly<Record<string, string>>,
  ) => Promise<void>;
}

/** Serves until the signal aborts; returns 0, or throws a CliError for what a user can fix. */
export async function serveEmbedded(
  options: EmbeddedOptions,
  io: CommandIO,
  run: ServeRunOptions = {},
): Promise<number> {
  const startedAt = performance.now();
  const stop = run.signal
    ? { signal: run.signal, dispose: () => undefined }
    : withStreams(io).stopSignal();
  try {
    const handle = await startEmbedded({
      ...options,
      apiServer: { ...options.apiServer, onEvent: (event) => report(event, io) },
      onSlowStop: (part, ms) =>
        io.stderr(`stopping: still waiting for ${part} after ${Math.round(ms / 1000)} s\n`),
    });
    const { url, dataDir, kubeconfigPath } = handle.apiServer;
    io.stdout(
      `serving ${url} (data dir ${dataDir}; ready in ${Math.round(performance.now() - startedAt)} ms, ${Math.round(performance.now())} ms after process start)\n` +
        `kubeconfig: ${kubeconfigPath}\n`,
    );
    await run.onServing?.({ url, dataDir, kubeconfigPath }, handle.endpoints);
    const failure = await untilStopped(handle.done, stop.signal);
    await handle.stop();
    io.stdout('stopped\n');
    if (failure !== undefined) throw failure;
    return 0;
  } catch (err: unknown) {
    throw failureOf(err, { complete: [LocalError] }) ?? err;
  } finally {
    stop.dispose();
  }
}

/** Waits for the signal or for `done` to settle; returns the failure `done` rejected with. */
function untilStopped(done: Promise<void>, signal: AbortSignal): Promise<unknown> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(undefined);
    const onAbort = (): void => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    done.then(
      () => resolve(undefined),
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        resolve(err);
      },
    );
  });
}

function report(event: ApiServerEvent, io: CommandIO): void {
  switch (event.type) {
    case 'file-written':
      io.stderr(`wrote ${event.path}\n`);
      return;
    case 'port-taken':
      io.stderr(`port ${event.port} is in use; picking a free port (pass --port to choose)\n`);
      return;
    case 'request-failed':
      // One JSON line on stderr for each request that failed on the server's side.
      io.stderr(
        `${JSON.stringify({ time: new Date().toISOString(), level: 'error', msg: 'request failed', ...event.failure })}\n`,
      );
      return;
    case 'audit-failed':
      io.stderr(
        `audit log write failed: ${event.error instanceof Error ? event.error.message : String(event.error)}\n`,
      );
      return;
    case 'compaction-failed':
      io.stderr(
        `compaction failed: ${event.error instanceof Error ? event.error.message : String(event.error)}\n`,
      );
      return;
  }
}
