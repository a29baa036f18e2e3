// process.v1.ProcessService (dataplane §4.2) plus the re-attach extension's state: Start streams
// init → output → exit; a client that goes away kills the process group unless it sent
// `x-sandboxd-detach: true`, in which case the process keeps running for Attach.
import type { ServerUnaryCall, ServerWritableStream } from '@grpc/grpc-js';
import {
  DETACH_METADATA,
  ProcessSignal,
  type ExecuteRequest,
  type ProcessConfig,
  type ResizeTTYRequest,
  type SendSignalRequest,
  type StartRequest,
  type WriteStdinRequest,
} from '@agent-sandbox/protocol';
import { performance } from 'node:perf_hooks';
import { SandboxdError, sandboxdError, type LogFn } from '../errors.ts';
import { childEnv, runToCompletion } from '../exec.ts';
import { sanitizePath } from '../paths.ts';
import type { ProcessLimiter } from '../process-limiter.ts';
import { ManagedProcess, type OutputEvent } from '../process/managed-process.ts';
import type { ProcessTable } from '../process/process-table.ts';
import type { GuardedService } from './boundary.ts';

export interface ProcessServiceDeps {
  root: string;
  env: NodeJS.ProcessEnv;
  limiter: ProcessLimiter;
  table: ProcessTable;
  ptyCommand: string[];
  sttyCommand: string[];
  retainBytes: number;
  chunkSize: number;
  /** Debug lines: each Start's steps and their times (`--log-level debug`). @default none */
  debug?: LogFn;
}

const SIGNALS: Record<number, NodeJS.Signals> = {
  [ProcessSignal.SIGINT]: 'SIGINT',
  [ProcessSignal.SIGTERM]: 'SIGTERM',
  [ProcessSignal.SIGKILL]: 'SIGKILL',
};

/** Validates a ProcessConfig: argv, environment and a confined working directory. */
export async function commandOf(deps: ProcessServiceDeps, config: ProcessConfig | undefined) {
  const argv = config?.command ?? [];
  if (argv.length === 0 || argv[0] === '')
    throw sandboxdError('InvalidArgument', 'command is required');
  let cwd = deps.root;
  if (config?.cwd !== undefined) {
    try {
      cwd = await sanitizePath(deps.root, config.cwd);
    } catch (err: unknown) {
      if (err instanceof SandboxdError && err.code === 'PathEscapes')
        throw sandboxdError('PermissionDenied', `cwd: ${err.message}`, err);
      throw sandboxdError('Internal', `cwd: ${String(err)}`, err);
    }
  }
  return { argv, cwd, env: childEnv(deps.env, config?.env_vars) };
}

/** Streams a process's events to `call` from the given offsets until it exits. */
export function streamProcess(
  p: ManagedProcess,
  call: ServerWritableStream<unknown, unknown>,
  offsets: { stdout: number; stderr: number },
): () => void {
  const send = (e: OutputEvent) => {
    if (e.kind === 'exit') {
      call.write({ exit: { exit_code: e.exitCode } });
      call.end();
    } else call.write({ [e.kind]: e.data });
  };
  const replayOut = p.stdout.from(offsets.stdout);
  const replayErr = p.stderr.from(offsets.stderr);
  if (replayOut.length > 0) call.write({ stdout: replayOut });
  if (replayErr.length > 0) call.write({ stderr: replayErr });
  if (!p.running) {
    send({ kind: 'exit', exitCode: p.exitCode ?? -1 });
    return () => undefined;
  }
  return p.follow(send);
}

/**
 * The daemon's own warm-up Start (grpc-server.ts), its first call, sends this: that process gets
 * id 0 and no table entry, so no client lists or attaches to it or sees the ids shift. Only the
 * first Start that carries it counts; later ones are ordinary Starts.
 */
export const WARM_UP_METADATA = 'x-sandboxd-warm-up';

/**
 * One Start's debug timeline, in ms since it was received: a line when it arrives, and one once
 * its process spawned and the init frame was handed to HTTP/2 (or the client left first). A Start
 * the client calls stalled shows here as no line, a slow spawn, or a slow init write.
 */
interface StartTimeline {
  spawned(): void;
  ended(how: string, processId: number): void;
}

const NO_TIMELINE: StartTimeline = { spawned: () => undefined, ended: () => undefined };

function startTimeline(debug: LogFn | undefined, fields: Record<string, unknown>): StartTimeline {
  if (!debug) return NO_TIMELINE;
  const t0 = performance.now();
  const since = () => Math.round((performance.now() - t0) * 10) / 10;
  let spawnedMs: number | undefined;
  debug('Start received', fields);
  return {
    spawned: () => void (spawnedMs = since()),
    ended: (how: string, processId: number) =>
      debug(`Start ${how}`, { ...fields, process_id: processId, spawnedMs, endedMs: since() }),
  };
}

export function processService(deps: ProcessServiceDeps): GuardedService {
  let warmUpPending = true;
  let calls = 0;
  const start = async (call: ServerWritableStream<StartRequest, unknown>) => {
    const req = call.request;
    const warmUp = warmUpPending && call.metadata.get(WARM_UP_METADATA).length > 0;
    if (warmUp) warmUpPending = false;
    const timeline = startTimeline(deps.debug, {
      call: ++calls,
      argv0: req.config?.command?.[0],
      ...(warmUp ? { warmUp } : {}),
      ...(req.pty ? { pty: true } : {}),
    });
    const cmd = await commandOf(deps, req.config);
    const slot = deps.limiter.acquire();
    if (!slot) throw sandboxdError('ResourceExhausted', deps.limiter.refusal());
    let p: ManagedProcess;
    try {
      p = await ManagedProcess.start(warmUp ? 0 : deps.table.allocateId(), {
        ...cmd,
        ...(req.pty ? { pty: { cols: req.pty.cols, rows: req.pty.rows } } : {}),
        ptyCommand: deps.ptyCommand,
        sttyCommand: deps.sttyCommand,
        retainBytes: deps.retainBytes,
        chunkSize: deps.chunkSize,
      });
    } catch (err: unknown) {
      slot.release();
      throw err;
    }
    timeline.spawned();
    p.follow((e) => e.kind === 'exit' && slot.release());
    if (!warmUp) deps.table.add(p);
    const detached = call.metadata
      .get(DETACH_METADATA)
      .some((v) => String(v).toLowerCase() === 'true');
    if (call.cancelled) {
      timeline.ended('cancelled before init', p.id);
      if (!detached) await p.signal('SIGKILL');
      return;
    }
    call.write({ init: { process_id: p.id } }, () => timeline.ended('init sent', p.id));
    const stop = streamProcess(p, call as ServerWritableStream<unknown, unknown>, {
      stdout: 0,
      stderr: 0,
    });
    call.on('cancelled', () => {
      stop();
      if (!detached) void p.signal('SIGKILL');
    });
  };

  return {
    Start: start,
    Execute: async (req: ExecuteRequest, call: ServerUnaryCall<ExecuteRequest, unknown>) => {
      const cmd = await commandOf(deps, req.config);
      const slot = deps.limiter.acquire();
      if (!slot) throw sandboxdError('ResourceExhausted', deps.limiter.refusal());
      const abort = new AbortController();
      call.on('cancelled', () => abort.abort());
      try {
        const r = await runToCompletion({
          ...cmd,
          signal: abort.signal,
          maxOutputBytes: 512 * 1024 * 1024,
        });
        return {
          exit_code: r.signal === undefined ? r.exitCode : -1,
          stdout: r.stdout,
          stderr: r.stderr,
        };
      } finally {
        slot.release();
      }
    },
    WriteStdin: async (req: WriteStdinRequest) => {
      await deps.table.getLive(req.process_id).writeStdin(req.input, req.eof !== undefined);
      return {};
    },
    SendSignal: async (req: SendSignalRequest) => {
      const p = deps.table.any(req.process_id);
      const sig = SIGNALS[req.signal];
      if (!sig) throw sandboxdError('InvalidArgument', 'unsupported or unspecified signal');
      await p.signal(sig);
      return {};
    },
    ResizeTTY: async (req: ResizeTTYRequest) => {
      await deps.table.any(req.process_id).resize(req.cols, req.rows);
      return {};
    },
  };
}
