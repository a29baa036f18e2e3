// The audit log: one kube audit Event per JSON line in a size-bounded file (files/rotating-file.ts
// has the rotation rules). A failing disk is reported, never thrown into a request.
import {
  DEFAULT_ROTATE_MAX_BACKUPS,
  DEFAULT_ROTATE_MAX_BYTES,
  RotatingFile,
  type RotatingFileOptions,
} from '../files/rotating-file.ts';
import type { AuditEvent } from './audit-event.ts';

/** Where audit events go. */
export interface AuditSink {
  /** Records one event; never throws. */
  record(event: AuditEvent): void;
  /** Flushes and closes; later records are dropped. Idempotent. */
  close(): void;
}

export type FileAuditLogOptions = RotatingFileOptions;

export const DEFAULT_AUDIT_MAX_BYTES = DEFAULT_ROTATE_MAX_BYTES;
export const DEFAULT_AUDIT_MAX_BACKUPS = DEFAULT_ROTATE_MAX_BACKUPS;

export class FileAuditLog implements AuditSink {
  readonly #file: RotatingFile;

  constructor(o: FileAuditLogOptions) {
    this.#file = new RotatingFile(o);
  }

  record(event: AuditEvent): void {
    this.#file.write(`${JSON.stringify(event)}\n`);
  }

  close(): void {
    this.#file.close();
  }
}
