// The connect deadline of the data plane's one-shot calls (files over REST, the unary gRPC calls,
// a file watch's connection), as commands.run has for its Start: a daemon that does not answer
// fails the call within connectTimeoutMs with a ConnectionError naming the sandbox and address,
// instead of hanging until the caller gives up.
import { ConnectionError } from '../errors.ts';
import type { FileWriteData } from '../types.ts';

const MIB = 1024 * 1024;

/** What every "the daemon does not answer" message ends with: where to look, what to raise. */
export function daemonAdvice(sandboxName: string): string {
  return `check it with sandbox.info() or agent-sandbox get ${sandboxName}, or raise connectTimeoutMs`;
}

/** The ConnectionError of a call that met its deadline; `what` says what did not happen. */
export function noAnswer(sandboxName: string, what: string, context: string): ConnectionError {
  return new ConnectionError(
    `sandbox ${sandboxName}: ${what} (${context}); ${daemonAdvice(sandboxName)}`,
  );
}

/**
 * A clock that aborts `signal` once `ms` pass without progress. `progress()` restarts it (an
 * upload whose body the transport keeps taking is alive however long it is); `clear()` stops it
 * for good (the daemon answered).
 */
export class ProgressDeadline {
  readonly #controller = new AbortController();
  readonly #ms: number;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #cleared = false;

  constructor(ms: number) {
    this.#ms = ms;
    this.progress();
  }

  get ms(): number {
    return this.#ms;
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** The deadline passed (and aborted `signal`). */
  get expired(): boolean {
    return this.#controller.signal.aborted;
  }

  progress(): void {
    if (this.#cleared || this.expired) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#controller.abort(), this.#ms);
  }

  clear(): void {
    this.#cleared = true;
    clearTimeout(this.#timer);
  }
}

/**
 * `body` as a stream that reports each chunk the transport pulls, so a deadline can tell a slow
 * upload (pulls keep coming as the daemon reads) from a stalled one (the socket stays full).
 */
export function reportingPulls(
  body: ReadableStream<Uint8Array>,
  onPull: () => void,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      onPull();
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

/**
 * How long a call may go without an answer's headers: connectTimeoutMs, plus for a body given
 * whole a second per MiB (the daemon answers a write once it has it all, and fetch cannot say
 * how much of it went out). A streamed body restarts the clock with every chunk taken instead.
 */
export function answerDeadlineMs(
  connectTimeoutMs: number,
  body: FileWriteData | undefined,
): number {
  const bytes =
    typeof body === 'string'
      ? Buffer.byteLength(body)
      : body instanceof Blob
        ? body.size
        : body instanceof Uint8Array
          ? body.byteLength
          : 0;
  return connectTimeoutMs + Math.floor(bytes / MIB) * 1000;
}
