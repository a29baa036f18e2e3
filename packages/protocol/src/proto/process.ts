// process.v1 (dataplane §4.2): the daemon's process API, as the SDKs' generated stubs see it.
// Every package, service, method, message, field name and number is the wire contract; the
// descriptor test compares them with upstream's process.proto field by field.
import type { INamespace } from 'protobufjs';
import {
  enumeration,
  field,
  map,
  message,
  optional,
  repeated,
  rpc,
  service,
} from './descriptor.ts';

export const PROCESS_PACKAGE = 'process.v1';
export const PROCESS_SERVICE = `${PROCESS_PACKAGE}.ProcessService`;

export const processPackage: INamespace = {
  options: {
    go_package: 'sigs.k8s.io/agent-sandbox/packages/sandboxd/spec/process/v1;processv1',
    java_multiple_files: true,
    java_package: 'io.sandboxd.packages.sandboxd.spec.process',
  },
  nested: {
    ProcessService: service({
      Start: rpc('StartRequest', 'StartResponse', true),
      Execute: rpc('ExecuteRequest', 'ExecuteResponse'),
      WriteStdin: rpc('WriteStdinRequest', 'WriteStdinResponse'),
      SendSignal: rpc('SendSignalRequest', 'SendSignalResponse'),
      ResizeTTY: rpc('ResizeTTYRequest', 'ResizeTTYResponse'),
    }),
    Signal: enumeration({
      SIGNAL_UNSPECIFIED: 0,
      SIGNAL_SIGINT: 2,
      SIGNAL_SIGKILL: 9,
      SIGNAL_SIGTERM: 15,
    }),
    PTY: message({ cols: field('uint32', 1), rows: field('uint32', 2) }),
    ProcessConfig: message({
      command: repeated('string', 1),
      env_vars: map('string', 'string', 2),
      cwd: optional('string', 3),
    }),
    StartRequest: message({ config: field('ProcessConfig', 1), pty: optional('PTY', 2) }),
    InitEvent: message({ process_id: field('int32', 1) }),
    ExitEvent: message({ exit_code: field('int32', 1) }),
    StartResponse: message(
      {
        init: field('InitEvent', 1),
        stdout: field('bytes', 2),
        stderr: field('bytes', 3),
        exit: field('ExitEvent', 4),
      },
      { event: ['init', 'stdout', 'stderr', 'exit'] },
    ),
    ExecuteRequest: message({ config: field('ProcessConfig', 1) }),
    ExecuteResponse: message({
      exit_code: field('int32', 1),
      stdout: field('bytes', 2),
      stderr: field('bytes', 3),
    }),
    WriteStdinRequest: message(
      {
        process_id: field('int32', 1),
        input: field('bytes', 2),
        eof: field('google.protobuf.Empty', 3),
      },
      { payload: ['input', 'eof'] },
    ),
    WriteStdinResponse: message({}),
    SendSignalRequest: message({ process_id: field('int32', 1), signal: field('Signal', 2) }),
    SendSignalResponse: message({}),
    ResizeTTYRequest: message({
      process_id: field('int32', 1),
      cols: field('uint32', 2),
      rows: field('uint32', 3),
    }),
    ResizeTTYResponse: message({}),
  },
};

/** Signal enum values (SendSignal accepts only these three). */
export const ProcessSignal = { SIGINT: 2, SIGKILL: 9, SIGTERM: 15 } as const;

export interface ProcessConfig {
  command: string[];
  env_vars: Record<string, string>;
  cwd?: string;
}
export interface StartRequest {
  config?: ProcessConfig;
  pty?: { cols: number; rows: number };
}
export type StartEvent =
  | { init: { process_id: number } }
  | { stdout: Uint8Array }
  | { stderr: Uint8Array }
  | { exit: { exit_code: number } };
export interface ExecuteRequest {
  config?: ProcessConfig;
}
export interface ExecuteResponse {
  exit_code: number;
  stdout: Uint8Array;
  stderr: Uint8Array;
}
export interface WriteStdinRequest {
  process_id: number;
  input?: Uint8Array;
  eof?: Record<string, never>;
}
export interface SendSignalRequest {
  process_id: number;
  signal: number;
}
export interface ResizeTTYRequest {
  process_id: number;
  cols: number;
  rows: number;
}
