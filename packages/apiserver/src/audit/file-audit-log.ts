// The audit log as JSON lines in a file with a size bound: when the next line would take the
// file past maxBytes it becomes <file>.1 (older backups shift to .2, … and the oldest beyond
// maxBackups is removed), so the log never holds more than maxBytes × (maxBackups + 1). Writes
// are synchronous appends (a line per write request); a failing disk is reported, never thrown
// into a request.
import { closeSync, fstatSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import type { AuditEvent } from './audit-event.ts';

/** Where audit events go. */
export interface AuditSink {
  /** Records one event; never throws. */
  record(event: AuditEvent): void;
  /** Flushes and closes; later records are dropped. Idempotent. */
  close(): void;
}

export interface FileAuditLogOptions {
  path: string;
  /** @default 10 MiB */
  maxBytes?: number;
  /** Rotated files kept beside the current one. @default 3 */
  maxBackups?: number;
  /** Told when a write or rotation fails (the event is dropped). @default ignored */
  onError?: (error: unknown) => void;
}

export const DEFAULT_AUDIT_MAX_BYTES = 10 * 1024 * 1024;
export const DEFAULT_AUDIT_MAX_BACKUPS = 3;

export class FileAuditLog implements AuditSink {
  readonly #path: string;
  readonly #maxBytes: number;
  readonly #maxBackups: number;
  readonly #onError: (error: unknown) => void;
  #fd: number | undefined;
  #size = 0;
  #closed = false;

  constructor(o: FileAuditLogOptions) {
    this.#path = o.path;
    this.#maxBytes = o.maxBytes ?? DEFAULT_AUDIT_MAX_BYTES;
    this.#maxBackups = o.maxBackups ?? DEFAULT_AUDIT_MAX_BACKUPS;
    this.#onError = o.onError ?? (() => undefined);
    this.#open();
  }

  #open(): void {
    // 0600: the log names users and objects; nobody else on the machine needs to read it.
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

  record(event: AuditEvent): void {
    if (this.#closed) return;
    const line = Buffer.from(`${JSON.stringify(event)}\n`);
    try {
      if (this.#fd === undefined) this.#open();
      if (this.#size > 0 && this.#size + line.length > this.#maxBytes) this.#rotate();
      this.#size += writeSync(this.#fd as number, line);
    } catch (err: unknown) {
      this.#onError(err);
    }
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }
}
