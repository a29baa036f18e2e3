// The SDK's public result types (no I/O, no imports: they are the published declarations).
/**
 * - `Pending`: created, not Ready yet (no Pod, Pod starting, claim waiting on a pool).
 * - `Running`: Ready; commands and files work.
 * - `Suspending` / `Suspended`: operatingMode Suspended; the Pod is going or gone, the disk stays.
 * - `Finished`: the Pod ended (Succeeded or Failed).
 * - `Failed`: the controller refused the claim for good (see `message`).
 * - `Terminating`: being deleted.
 */
export type SandboxState =
  'Pending' | 'Running' | 'Suspending' | 'Suspended' | 'Finished' | 'Failed' | 'Terminating';

export interface SandboxInfo {
  /** What connect() takes: the claim's name, or the Sandbox's for an `image` sandbox. */
  id: string;
  /** The Sandbox object's name (what the router calls X-Sandbox-ID); undefined until bound. */
  sandboxName: string | undefined;
  /** The SandboxClaim's name; undefined for an `image` sandbox. */
  claimName: string | undefined;
  namespace: string;
  state: SandboxState;
  /** The reason and message of the condition that decided `state`, when there is one. */
  reason: string | undefined;
  message: string | undefined;
  warmPool: string | undefined;
  template: string | undefined;
  image: string | undefined;
  labels: Record<string, string>;
  /** The user's annotations (the SDK's `metadata`), without the system ones. */
  metadata: Record<string, string>;
  podIPs: string[];
  createdAt: Date | undefined;
  /** When the sandbox expires (shutdownTime), if it does. */
  expiresAt: Date | undefined;
}

/** One entry of files.list(). */
export interface FileInfo {
  name: string;
  /** `path` given to list() joined with `name`. */
  path: string;
  type: 'file' | 'directory';
  size: number;
  /** Four octal digits, e.g. `0644`. */
  mode: string;
  modifiedAt: Date;
}

/** What files.write() takes: text (UTF-8), bytes, a Blob or a stream of bytes. */
export type FileWriteData = string | Uint8Array | Blob | ReadableStream<Uint8Array>;

export type ReadFormat = 'text' | 'bytes' | 'stream';

export interface FileWatchEvent {
  type: 'create' | 'write' | 'remove' | 'rename' | 'chmod' | 'error' | 'unknown';
  /** Relative to the sandbox root, `/`-separated. */
  path: string;
  /** Set on `error` events, which end the watch. */
  error?: string;
}

export interface WatchOptions {
  /** Also watch subdirectories (new ones included). @default false */
  recursive?: boolean;
  /** Stops the watch. */
  signal?: AbortSignal;
}

export interface WatchHandle {
  /** Ends the watch; resolves once it has ended. */
  stop(): Promise<void>;
  /** Resolves when the watch ends (stop(), signal, or a final error event). */
  done: Promise<void>;
}

export interface CommandRunOptions {
  /** Working directory, inside the sandbox root. @default the root */
  cwd?: string;
  /** Environment variables added to the daemon's. @default {} */
  env?: Record<string, string>;
  /**
   * Time limit in ms; the command is killed and run() rejects with TimeoutError when it passes.
   * 0 means none. @default 60_000 (foreground), 0 (background)
   */
  timeoutMs?: number;
  /** Called with each piece of output as it arrives (UTF-8). */
  onStdout?: (data: string) => void;
  onStderr?: (data: string) => void;
  /** Keep stdin open for sendStdin(); otherwise it is closed at once. @default false */
  stdin?: boolean;
  /** Run on a terminal of this size; all output then arrives as stdout. */
  pty?: { cols: number; rows: number };
  /** Kills the command; run() rejects with AbortedError. */
  signal?: AbortSignal;
}

export interface CommandResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** A command started with `background: true`. */
export interface CommandHandle {
  /** The daemon's process ID (not the OS PID). */
  readonly pid: number;
  /** Output so far. */
  readonly stdout: string;
  readonly stderr: string;
  /** Resolves with the result when the command exits. */
  wait(): Promise<CommandResult>;
  /** SIGKILL to the command's process group; false when it had already ended. */
  kill(): Promise<boolean>;
  /** Writes to the command's stdin (start it with `stdin: true`). */
  sendStdin(data: string | Uint8Array): Promise<void>;
  closeStdin(): Promise<void>;
  /** Resizes the terminal of a `pty` command. */
  resize(size: { cols: number; rows: number }): Promise<void>;
  /** Stops following the output; the command keeps running. */
  disconnect(): void;
}

/** `sandbox.commands`: shell commands in the sandbox, through sandboxd's process API. */
export interface Commands {
  /** Runs a shell command and resolves with its exit code and output (a non-zero exit is no error). */
  run(
    command: string,
    options?: CommandRunOptions & { background?: false },
  ): Promise<CommandResult>;
  /** Starts a shell command and resolves with a handle once it runs. */
  run(command: string, options: CommandRunOptions & { background: true }): Promise<CommandHandle>;
}

export interface FileCallOptions {
  signal?: AbortSignal;
}

/** `sandbox.files`: the sandbox's files, through sandboxd's REST API (paths inside its root). */
export interface Files {
  /** A file's content: text (UTF-8, the default), bytes, or a stream of bytes. */
  read(path: string, options?: FileCallOptions & { format?: 'text' }): Promise<string>;
  read(path: string, options: FileCallOptions & { format: 'bytes' }): Promise<Uint8Array>;
  read(
    path: string,
    options: FileCallOptions & { format: 'stream' },
  ): Promise<ReadableStream<Uint8Array>>;
  /** Writes a file atomically (parents are created); `mode` e.g. '0755'. */
  write(
    path: string,
    data: FileWriteData,
    options?: FileCallOptions & { mode?: string },
  ): Promise<void>;
  /** The entries of a directory, sorted by name. */
  list(path: string, options?: FileCallOptions): Promise<FileInfo[]>;
  exists(path: string, options?: FileCallOptions): Promise<boolean>;
  /** Removes a file, or a directory (`recursive` when it is not empty). */
  remove(path: string, options?: FileCallOptions & { recursive?: boolean }): Promise<void>;
  /**
   * Calls `onEvent` for changes under `path` until stop() or `signal`; a final `error` event
   * ends it (e.g. the directory was removed).
   */
  watch(
    path: string,
    onEvent: (event: FileWatchEvent) => void,
    options?: WatchOptions,
  ): Promise<WatchHandle>;
}
