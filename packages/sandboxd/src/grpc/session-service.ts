// agentsandbox.sandboxd.v1.ProcessSessionService: re-attach to a Start process from byte
// offsets, and read the output and exit code of running or ended ones.
import type { ServerWritableStream } from '@grpc/grpc-js';
import type { AttachRequest, ProcessInfo } from '@agent-sandbox/protocol';
import type { ManagedProcess } from '../process/managed-process.ts';
import type { ProcessTable } from '../process/process-table.ts';
import type { GuardedService } from './boundary.ts';
import { streamProcess } from './process-service.ts';

export function processInfo(p: ManagedProcess): ProcessInfo {
  return {
    process_id: p.id,
    command: p.argv,
    running: p.running,
    exit_code: p.exitCode ?? 0,
    stdout: p.stdout.from(0),
    stderr: p.stderr.from(0),
    stdout_offset: p.stdout.firstOffset,
    stderr_offset: p.stderr.firstOffset,
    timed_out: p.timedOut,
  };
}

export function sessionService(table: ProcessTable): GuardedService {
  return {
    Attach: async (call: ServerWritableStream<AttachRequest, unknown>) => {
      const p = table.any(call.request.process_id);
      const stop = streamProcess(p, call as ServerWritableStream<unknown, unknown>, {
        stdout: call.request.stdout_offset,
        stderr: call.request.stderr_offset,
      });
      call.on('cancelled', stop); // detaching never stops the process
    },
    Inspect: async (req: { process_id: number }) => processInfo(table.any(req.process_id)),
    List: async () => ({ processes: table.all().map(processInfo) }),
  };
}
