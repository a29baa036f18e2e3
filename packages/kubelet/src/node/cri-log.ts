// Container output as CRI log files (kubelet-and-oci §3.6): one file per container instance,
// lines `<RFC3339Nano> <stdout|stderr> <F|P> <content>`; P marks a split (partial) line.
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';

const MAX_LINE = 16 * 1024;

/** `/var/log/pods` layout under `logsDir`. */
export function criLogPath(
  logsDir: string,
  pod: { namespace: string; name: string; uid: string },
  container: string,
  restartCount: number,
): string {
  return join(logsDir, `${pod.namespace}_${pod.name}_${pod.uid}`, container, `${restartCount}.log`);
}

/** RFC 3339 with nanoseconds, fixed width (kubelet's timestamps=true format). */
export function criTimestamp(d: Date = new Date()): string {
  return `${d.toISOString().slice(0, 23)}000000Z`;
}

export class CriLogWriter {
  readonly path: string;
  #out: WriteStream | undefined;
  #open = 0;
  readonly #closed: Promise<void>;
  #resolveClosed: () => void = () => undefined;

  constructor(path: string) {
    this.path = path;
    this.#closed = new Promise((r) => (this.#resolveClosed = r));
  }

  async open(): Promise<void> {
    await mkdir(dirname(this.path), { recursive: true });
    this.#out = createWriteStream(this.path, { flags: 'a' });
  }

  /** Copies `source` line by line; `tap` sees the raw chunks (attach). */
  follow(source: Readable, stream: 'stdout' | 'stderr', tap?: (chunk: Buffer) => void): void {
    this.#open++;
    let pending = '';
    source.on('data', (chunk: Buffer) => {
      tap?.(chunk);
      pending += chunk.toString('utf8');
      let nl = pending.indexOf('\n');
      while (nl >= 0) {
        this.#line(stream, 'F', pending.slice(0, nl));
        pending = pending.slice(nl + 1);
        nl = pending.indexOf('\n');
      }
      while (pending.length > MAX_LINE) {
        this.#line(stream, 'P', pending.slice(0, MAX_LINE));
        pending = pending.slice(MAX_LINE);
      }
    });
    source.on('close', () => {
      if (pending) this.#line(stream, 'P', pending);
      pending = '';
      if (--this.#open === 0) this.#end();
    });
  }

  #line(stream: string, tag: 'F' | 'P', content: string): void {
    this.#out?.write(`${criTimestamp()} ${stream} ${tag} ${content}\n`);
  }

  #end(): void {
    if (this.#out) this.#out.end(() => this.#resolveClosed());
    else this.#resolveClosed();
  }

  /** Resolves once every followed stream ended and the file is flushed. */
  async closed(): Promise<void> {
    return this.#closed;
  }
}
