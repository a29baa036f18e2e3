// The CRI container log format (pure parts + a writer): one line per record,
// `<RFC3339Nano timestamp> <stdout|stderr> <F|P> <content>`, P marking a partial line that the
// next record continues. The runtime writes it; the log endpoint reads it (§3.6).
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

export type LogStream = 'stdout' | 'stderr';

export interface LogRecord {
  /** Fixed-width RFC 3339 with nanoseconds, as kubelet's `timestamps=true` prints it. */
  timestamp: string;
  /** Milliseconds since the epoch, for since* filtering. */
  timeMs: number;
  stream: LogStream;
  partial: boolean;
  content: string;
}

/** `2024-05-01T12:00:00.123456789Z` from ms since the epoch plus a sub-millisecond part. */
export function criTimestamp(ms: number, subMillisecondNs = 0): string {
  const iso = new Date(ms).toISOString(); // 2024-05-01T12:00:00.123Z
  const ns = String(Math.max(0, Math.min(999_999, Math.floor(subMillisecondNs)))).padStart(6, '0');
  return `${iso.slice(0, 23)}${ns}Z`;
}

export function formatRecord(record: Omit<LogRecord, 'timeMs'>): string {
  return `${record.timestamp} ${record.stream} ${record.partial ? 'P' : 'F'} ${record.content}\n`;
}

/** Parses one line (without its newline); undefined for a line that is not CRI format. */
export function parseRecord(line: string): LogRecord | undefined {
  const m = /^(\S+) (stdout|stderr) ([FP]) (.*)$/s.exec(line);
  if (!m) return undefined;
  const timestamp = m[1] as string;
  const timeMs = Date.parse(timestamp);
  if (Number.isNaN(timeMs)) return undefined;
  return {
    timestamp,
    timeMs,
    stream: m[2] as LogStream,
    partial: m[3] === 'P',
    content: m[4] as string,
  };
}

/** Content longer than this is split into partial records (containerd's 16 KiB line buffer). */
const MAX_RECORD_BYTES = 16 * 1024;

/**
 * Appends a container's output to its CRI log file. Full lines become F records; a write without
 * a newline is kept until the newline arrives or `flush()` (then a P record). Synchronous appends:
 * the order of records is the order of writes, and a reader sees every record once written.
 */
export class CriLogWriter {
  readonly #pending: Record<LogStream, string> = { stdout: '', stderr: '' };
  readonly #clock: () => { ms: number; ns: number };

  constructor(
    readonly path: string,
    clock?: () => { ms: number; ns: number },
  ) {
    mkdirSync(dirname(path), { recursive: true });
    this.#clock =
      clock ??
      (() => {
        const ns = process.hrtime.bigint() % 1_000_000n;
        return { ms: Date.now(), ns: Number(ns) };
      });
  }

  write(stream: LogStream, chunk: Buffer | string): void {
    let text = this.#pending[stream] + chunk.toString();
    let out = '';
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n')) {
      out += this.#records(stream, text.slice(0, nl), false);
      text = text.slice(nl + 1);
    }
    while (text.length > MAX_RECORD_BYTES) {
      out += this.#records(stream, text.slice(0, MAX_RECORD_BYTES), true);
      text = text.slice(MAX_RECORD_BYTES);
    }
    this.#pending[stream] = text;
    if (out) appendFileSync(this.path, out);
  }

  /** Writes any held partial lines (at exit, or after a pause). */
  flush(): void {
    let out = '';
    for (const stream of ['stdout', 'stderr'] as const) {
      if (this.#pending[stream] === '') continue;
      out += this.#records(stream, this.#pending[stream], true);
      this.#pending[stream] = '';
    }
    if (out) appendFileSync(this.path, out);
  }

  #records(stream: LogStream, content: string, partial: boolean): string {
    const { ms, ns } = this.#clock();
    let out = '';
    for (
      let i = 0;
      i < content.length || (i === 0 && content.length === 0);
      i += MAX_RECORD_BYTES
    ) {
      const piece = content.slice(i, i + MAX_RECORD_BYTES);
      const last = i + MAX_RECORD_BYTES >= content.length;
      out += formatRecord({
        timestamp: criTimestamp(ms, ns),
        stream,
        partial: partial || !last,
        content: piece,
      });
      if (content.length === 0) break;
    }
    return out;
  }
}
