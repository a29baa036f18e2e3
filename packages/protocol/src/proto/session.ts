// agentsandbox.sandboxd.v1 — our extension beyond upstream: processes started with Start can be
// re-attached after the client went away, and their output and exit code stay readable after
// they end. Upstream SDKs never call it; upstream's services are unchanged by it.
import type { INamespace } from 'protobufjs';
import { field, message, repeated, rpc, service } from './descriptor.ts';

export const SESSION_PACKAGE = 'agentsandbox.sandboxd.v1';
export const SESSION_SERVICE = `${SESSION_PACKAGE}.ProcessSessionService`;

/** gRPC metadata on Start: `true` keeps the process running when the client disconnects. */
export const DETACH_METADATA = 'x-sandboxd-detach';

export const sessionPackage: INamespace = {
  nested: {
    ProcessSessionService: service({
      Attach: rpc('AttachRequest', 'process.v1.StartResponse', true),
      Inspect: rpc('InspectRequest', 'ProcessInfo'),
      List: rpc('ListProcessesRequest', 'ListProcessesResponse'),
    }),
    AttachRequest: message({
      process_id: field('int32', 1),
      stdout_offset: field('int64', 2),
      stderr_offset: field('int64', 3),
    }),
    InspectRequest: message({ process_id: field('int32', 1) }),
    ProcessInfo: message({
      process_id: field('int32', 1),
      command: repeated('string', 2),
      running: field('bool', 3),
      exit_code: field('int32', 4),
      stdout: field('bytes', 5),
      stderr: field('bytes', 6),
      stdout_offset: field('int64', 7),
      stderr_offset: field('int64', 8),
      timed_out: field('bool', 9),
    }),
    ListProcessesRequest: message({}),
    ListProcessesResponse: message({ processes: repeated('ProcessInfo', 1) }),
  },
};

export interface AttachRequest {
  process_id: number;
  stdout_offset: number;
  stderr_offset: number;
}
/**
 * `stdout`/`stderr` hold the retained tail; `*_offset` is the byte offset of its first byte in
 * the whole stream (older bytes were dropped once the retention cap was reached).
 */
export interface ProcessInfo {
  process_id: number;
  command: string[];
  running: boolean;
  exit_code: number;
  stdout: Uint8Array;
  stderr: Uint8Array;
  stdout_offset: number;
  stderr_offset: number;
  timed_out: boolean;
}
