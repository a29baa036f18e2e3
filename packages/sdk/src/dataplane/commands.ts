// sandbox.commands: process.v1 Start (dataplane §4.2) for every run, so output streams as it
// comes: run() waits for the exit, run({ background: true }) returns a handle at once. Commands
// run as `/bin/sh -c <command>`, as in upstream's SDKs. Background processes are started
// detached (our x-sandboxd-detach extension), so they outlive this client; kill() ends them.
import {
  DETACH_METADATA,
  PROCESS_SERVICE,
  ProcessSignal,
  type StartEvent,
} from '@agent-sandbox/protocol';
import * as grpc from '@grpc/grpc-js';
import type { Tracer } from '@opentelemetry/api';
import { AbortedError, ConnectionError, ServerError, TimeoutError } from '../errors.ts';
import { NO_MARK, withSpan, type MarkEvent } from '../tracing.ts';
import type { CommandHandle, CommandResult, CommandRunOptions, Commands } from '../types.ts';
import { checkEnv, checkTimeoutMs } from '../validation.ts';
import type { GrpcTarget, SandboxEndpoint } from './endpoint.ts';
import { daemonAdvice } from './deadline.ts';
import { grpcError, unary, type DaemonTarget } from './grpc.ts';
import { retryRefused } from './refused.ts';

/** A foreground command's time limit unless the call sets one. @default 60_000 */
export const DEFAULT_COMMAND_TIMEOUT_MS = 60_000;

export class SandboxCommands implements Commands {
  readonly #endpoint: SandboxEndpoint;
  readonly #tracer: Tracer;

  constructor(endpoint: SandboxEndpoint, tracer: Tracer) {
    this.#endpoint = endpoint;
    this.#tracer = tracer;
  }

  /** Runs a shell command and resolves with its exit code and output (a non-zero exit is no error). */
  run(
    command: string,
    options?: CommandRunOptions & { background?: false },
  ): Promise<CommandResult>;
  /** Starts a shell command and resolves with a handle once it runs. */
  run(command: string, options: CommandRunOptions & { background: true }): Promise<CommandHandle>;
  async run(
    command: string,
    options: CommandRunOptions & { background?: boolean } = {},
  ): Promise<CommandResult | CommandHandle> {
    if (options.env) checkEnv('env', options.env);
    const timeoutMs = options.timeoutMs ?? (options.background ? 0 : DEFAULT_COMMAND_TIMEOUT_MS);
    if (timeoutMs !== 0) checkTimeoutMs('timeoutMs', timeoutMs);
    const executable = command.trim().split(/\s+/)[0] ?? '';
    return withSpan(
      this.#tracer,
      'commands.run',
      {
        'sandbox.command.executable': executable,
        'sandbox.command.background': Boolean(options.background),
      },
      async (set, mark) => {
        // start() fails before the process exists, so a refused connection can start again.
        const handle = await retryRefused(
          async () =>
            start(
              await this.#endpoint.grpc(PROCESS_SERVICE, 'commands.run'),
              command,
              { ...options, timeoutMs },
              mark,
            ),
          { signal: options.signal, onRefused: () => this.#endpoint.reset() },
        );
        if (options.background) return handle;
        const result = await handle.wait();
        set({ 'sandbox.exit_code': result.exitCode });
        return result;
      },
    );
  }
}

/**
 * The message for a Start that got no `init` frame within the connect deadline: the daemon is
 * unreachable (no HTTP/2 connection), or connected and silent — and then since when, as the
 * deadline counts from sending Start and a slow connect spends part of it. Either way, waiting
 * out the command's own time limit would only hide it. With no connection, the channel's state
 * then says which: CONNECTING (no TCP answer or no HTTP/2 handshake yet) or TRANSIENT_FAILURE
 * (refused or reset, in grpc-js's back-off).
 */
export function stalledStart(
  target: Pick<GrpcTarget, 'address' | 'sandboxName' | 'connectTimeoutMs'>,
  command: string,
  connectedAfterMs: number | undefined,
  channelState?: string,
): string {
  const within = `within ${target.connectTimeoutMs} ms`;
  const state = channelState ? ` (channel ${channelState})` : '';
  const what =
    connectedAfterMs === undefined
      ? `no connection to its daemon at ${target.address} ${within}${state}`
      : connectedAfterMs === 0
        ? `its daemon at ${target.address} is connected but did not start the command ${within}`
        : `its daemon at ${target.address} connected after ${connectedAfterMs} ms but did not start the command ${within}`;
  return `sandbox ${target.sandboxName}: ${what} (${command}); ${daemonAdvice(target.sandboxName)}`;
}

/** Resolves `onReady` with the ms from now until the channel is READY (0 if it is already). */
function whenReady(
  channel: ReturnType<grpc.Client['getChannel']>,
  deadlineMs: number,
  onReady: (ms: number) => void,
): void {
  const since = Date.now();
  const follow = (state: grpc.connectivityState): void => {
    if (state === grpc.connectivityState.READY) return onReady(Date.now() - since);
    if (state === grpc.connectivityState.SHUTDOWN) return;
    channel.watchConnectivityState(state, deadlineMs, (err) => {
      if (!err) follow(channel.getConnectivityState(false));
    });
  };
  follow(channel.getConnectivityState(false));
}

/** Starts the command; `mark` gets the timeline: connected, start sent, started, first output. */
async function start(
  target: GrpcTarget,
  command: string,
  options: CommandRunOptions & { background?: boolean; timeoutMs: number },
  mark: MarkEvent = NO_MARK,
): Promise<CommandHandle> {
  const { client } = target;
  if (target.connectedAt !== undefined) mark('sandbox.daemon.connected', target.connectedAt);
  const metadata = new grpc.Metadata();
  if (options.background) metadata.set(DETACH_METADATA, 'true');
  const request = {
    config: {
      command: ['/bin/sh', '-c', command],
      env_vars: options.env ?? {},
      ...(options.cwd ? { cwd: options.cwd } : {}),
    },
    ...(options.pty ? { pty: options.pty } : {}),
  };
  const callOptions: grpc.CallOptions =
    options.timeoutMs > 0 ? { deadline: Date.now() + options.timeoutMs } : {};
  const call = (
    client['Start'] as (
      r: object,
      m: grpc.Metadata,
      o: grpc.CallOptions,
    ) => grpc.ClientReadableStream<StartEvent>
  ).call(client, request, metadata, callOptions);
  mark('process.start.sent');
  let firstOutput = true;
  const output = (): void => {
    if (firstOutput) mark('process.output.first');
    firstOutput = false;
  };
  const decoder = { stdout: new TextDecoder(), stderr: new TextDecoder() };
  const out = { stdout: '', stderr: '' };
  let pid: number | undefined;
  let exited = false;
  let aborted = false;
  let stalled: string | undefined;
  let connectedAfterMs: number | undefined;
  whenReady(client.getChannel(), Date.now() + target.connectTimeoutMs, (ms) => {
    connectedAfterMs ??= ms;
  });
  const startDeadline = setTimeout(() => {
    const state = grpc.connectivityState[client.getChannel().getConnectivityState(false)];
    stalled = stalledStart(target, command, connectedAfterMs, state);
    call.cancel();
  }, target.connectTimeoutMs);
  let onPid: (pid: number) => void = () => undefined;
  let onFail: (err: Error) => void = () => undefined;
  const started = new Promise<number>((resolve, reject) => {
    onPid = resolve;
    onFail = reject;
  });
  const kill = async (): Promise<boolean> => {
    if (pid === undefined || exited) return false;
    try {
      await unary(
        target,
        'SendSignal',
        { process_id: pid, signal: ProcessSignal.SIGKILL },
        `kill ${pid}`,
      );
      return true;
    } catch (err: unknown) {
      if ((err as { code?: string }).code === 'NotFound') return false;
      throw err;
    }
  };
  const finished = new Promise<CommandResult>((resolve, reject) => {
    call.on('data', (event: StartEvent) => {
      if ('init' in event && event.init) {
        clearTimeout(startDeadline);
        pid = event.init.process_id;
        mark('process.started');
        onPid(pid);
        if (!options.stdin) void closeStdin(target, pid).catch(() => undefined);
      } else if ('stdout' in event && event.stdout) {
        output();
        const text = decoder.stdout.decode(event.stdout, { stream: true });
        out.stdout += text;
        options.onStdout?.(text);
      } else if ('stderr' in event && event.stderr) {
        output();
        const text = decoder.stderr.decode(event.stderr, { stream: true });
        out.stderr += text;
        options.onStderr?.(text);
      } else if ('exit' in event && event.exit) {
        exited = true;
        resolve({ exitCode: event.exit.exit_code, stdout: out.stdout, stderr: out.stderr });
      }
    });
    call.on('error', (err: grpc.ServiceError) => {
      clearTimeout(startDeadline);
      // A detached (background) command outlives its stream: its time limit must kill it.
      if (err.code === grpc.status.DEADLINE_EXCEEDED && options.background)
        void kill().catch(() => undefined);
      const e = stalled
        ? new ConnectionError(stalled, { cause: err })
        : err.code === grpc.status.DEADLINE_EXCEEDED
          ? new TimeoutError(`command timed out after ${options.timeoutMs} ms: ${command}`, {
              cause: err,
            })
          : aborted || err.code === grpc.status.CANCELLED
            ? new AbortedError(`command aborted: ${command}`, { cause: err })
            : grpcError(`run ${command}`, err);
      onFail(e);
      reject(e);
    });
    call.on('end', () => {
      clearTimeout(startDeadline);
      reject(new ServerError(`run ${command}: the daemon ended the stream without an exit event`));
    });
  });
  finished.catch(() => undefined); // surfaced through wait()
  options.signal?.addEventListener(
    'abort',
    () => {
      aborted = true;
      void kill()
        .catch(() => undefined)
        .finally(() => call.cancel());
    },
    { once: true },
  );
  if (options.signal?.aborted) {
    clearTimeout(startDeadline);
    call.cancel();
    throw new AbortedError(`command aborted before it started: ${command}`);
  }
  const processId = await started;
  return {
    pid: processId,
    get stdout() {
      return out.stdout;
    },
    get stderr() {
      return out.stderr;
    },
    wait: () => finished,
    kill,
    sendStdin: async (data: string | Uint8Array) => {
      const input = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
      await unary(target, 'WriteStdin', { process_id: processId, input }, `stdin of ${processId}`);
    },
    closeStdin: () => closeStdin(target, processId),
    resize: async (size: { cols: number; rows: number }) => {
      await unary(target, 'ResizeTTY', { process_id: processId, ...size }, `resize ${processId}`);
    },
    disconnect: () => call.cancel(),
  };
}

async function closeStdin(target: DaemonTarget, pid: number): Promise<void> {
  await unary(target, 'WriteStdin', { process_id: pid, eof: {} }, `close stdin of ${pid}`);
}
