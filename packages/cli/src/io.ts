// What a command reads and writes, injected so tests run commands in-process. Text-level
// functions serve most verbs; the streams, the terminal and the stop signal serve the long-running
// and interactive ones (start, controller, and next exec, cp, logs, attach). Only stdout, stderr
// and stdin() are required: withStreams() supplies the rest from them, so an in-memory IO is
// three functions.
import { PassThrough, Readable, Writable } from 'node:stream';

export interface CommandIO {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Reads all of standard input (for `-f -`). */
  stdin(): string;
  /** Standard input as a stream. @default a stream of stdin(), read when first pulled */
  stdinStream?: Readable;
  /** Standard output as a stream (binary-safe). @default writes through stdout() */
  stdoutStream?: Writable;
  /** @default writes through stderr() */
  stderrStream?: Writable;
  /** @default not a terminal */
  terminal?: Terminal;
  /**
   * A signal aborted by the first interrupt (Ctrl-C, SIGTERM); dispose() stops listening.
   * @default never aborted
   */
  stopSignal?: () => StopSignal;
}

export interface Terminal {
  /** Whether stdin and stdout are both a TTY (exec -t, attach, table widths). */
  isTTY: boolean;
  /** Raw mode for stdin: keys pass through unprocessed (exec -it). No-op when not a TTY. */
  setRawMode(raw: boolean): void;
  /** Columns of stdout, when a TTY. */
  columns?: number;
  /** Rows of stdout, when a TTY (exec -t sends the size). */
  rows?: number;
  /** Calls `listener` with each new size of the terminal; returns the unsubscribe. */
  onResize?(listener: (size: { columns: number; rows: number }) => void): () => void;
}

export interface StopSignal {
  signal: AbortSignal;
  dispose(): void;
}

/** A CommandIO with every optional member filled in (the defaults, in one place). */
export type FullCommandIO = Required<CommandIO>;

export function withStreams(io: CommandIO): FullCommandIO {
  return {
    stdout: io.stdout,
    stderr: io.stderr,
    stdin: io.stdin,
    stdinStream: io.stdinStream ?? lazyReadable(() => io.stdin()),
    stdoutStream: io.stdoutStream ?? textWritable(io.stdout),
    stderrStream: io.stderrStream ?? textWritable(io.stderr),
    terminal: io.terminal ?? { isTTY: false, setRawMode: () => undefined },
    stopSignal:
      io.stopSignal ?? (() => ({ signal: new AbortController().signal, dispose: () => undefined })),
  };
}

function lazyReadable(read: () => string): Readable {
  let done = false;
  return new Readable({
    read() {
      if (done) return;
      done = true;
      this.push(read());
      this.push(null);
    },
  });
}

function textWritable(write: (text: string) => void): Writable {
  return new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      write(typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
      callback();
    },
  });
}

/** An in-memory CommandIO capturing output, for tests and embedding. */
export function memoryIO(stdin = ''): CommandIO & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  const input = new PassThrough();
  input.end(stdin);
  return {
    stdout: (t) => void (out += t),
    stderr: (t) => void (err += t),
    stdin: () => stdin,
    stdinStream: input,
    out: () => out,
    err: () => err,
  };
}
