// Lines appended to a file with a size bound: when the next line would take the file past
// maxBytes it becomes <file>.1 (older backups shift to .2, … and the oldest beyond maxBackups is
// removed), so the file never holds more than maxBytes × (maxBackups + 1). Appends are
// synchronous (a log line must survive a crash right after it); a failing disk is reported to
// onError, never thrown into the caller — a full disk must not take a request or a reconcile down.
import { closeSync, fstatSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';

export interface RotatingFileOptions {
  path: string;
  /** @default 10 MiB */
  maxBytes?: number;
  /** Rotated files kept beside the current one. @default 3 */
  maxBackups?: number;
  /** Told when a write or rotation fails (the line is dropped). @default ignored */
  onError?: (error: unknown) => void;
}

export const DEFAULT_ROTATE_MAX_BYTES = 10 * 1024 * 1024;
export const DEFAULT_ROTATE_MAX_BACKUPS = 3;

export class RotatingFile {
  readonly #path: string;
  readonly #maxBytes: number;
  readonly #maxBackups: number;
  readonly #onError: (error: unknown) => void;
  #fd: number | undefined;
  #size = 0;
  #closed = false;

  constructor(o: RotatingFileOptions) {
    this.#path = o.path;
    this.#maxBytes = o.maxBytes ?? DEFAULT_ROTATE_MAX_BYTES;
    this.#maxBackups = o.maxBackups ?? DEFAULT_ROTATE_MAX_BACKUPS;
    this.#onError = o.onError ?? (() => undefined);
    this.#open();
  }

  #open(): void {
    // 0600: logs name users and objects; nobody else on the machine needs to read them.
    this.#fd = openSync(this.#path, 'a', 0o600);
    this.#size = fstatSync(this.#fd).size;
  }

  #rotate(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
    rmSync(`${this.#path}.${this.#maxBackups}`, { force: true });
    for (let n = this.#maxBackups - 1; n >= 1; n--) {
      try {
        renameSync(`${this.#path}.${n}`, `${this.#path}.${n + 1}`);
      } catch (err: unknown) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    }
    if (this.#maxBackups > 0) renameSync(this.#path, `${this.#path}.1`);
    else rmSync(this.#path, { force: true });
    this.#open();
  }

  /** Appends `text` (one or more whole lines, each ending in \n); dropped once closed. */
  write(text: string): void {
    if (this.#closed) return;
    const bytes = Buffer.from(text);
    try {
      if (this.#fd === undefined) this.#open();
      if (this.#size > 0 && this.#size + bytes.length > this.#maxBytes) this.#rotate();
      this.#size += writeSync(this.#fd as number, bytes);
    } catch (err: unknown) {
      this.#onError(err);
    }
  }

  /** Closes the file; later writes are dropped. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }
}
