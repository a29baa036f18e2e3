// Serves a container's CRI log with kube's options (§3.6): sinceSeconds/sinceTime drop older
// records, tailLines keeps the last N, timestamps prefixes each record, limitBytes cuts the
// output, follow keeps reading appended records until the instance stops or the client leaves.
import { open, type FileHandle } from 'node:fs/promises';
import type { ContainerLog } from './backend.ts';
import { parseRecord, type LogRecord } from './cri-log.ts';
import type { LogOptions } from './request-options.ts';

/** How often a followed log is checked for new records. */
const FOLLOW_POLL_MS = 100;

export function renderRecord(record: LogRecord, timestamps: boolean): string {
  return `${timestamps ? `${record.timestamp} ` : ''}${record.content}${record.partial ? '' : '\n'}`;
}

/** The records the initial (non-follow) part of the answer contains, in order. */
export function selectRecords(records: readonly LogRecord[], options: LogOptions): LogRecord[] {
  let selected =
    options.sinceMs === undefined
      ? [...records]
      : records.filter((r) => r.timeMs >= (options.sinceMs as number));
  if (options.tailLines !== undefined)
    selected = options.tailLines === 0 ? [] : selected.slice(-options.tailLines);
  return selected;
}

/** Splits file text into parsed records and the unfinished tail (no newline yet). */
function parseChunk(text: string): { records: LogRecord[]; rest: string } {
  const lines = text.split('\n');
  const rest = lines.pop() ?? '';
  const records: LogRecord[] = [];
  for (const line of lines) {
    const record = parseRecord(line);
    if (record) records.push(record);
  }
  return { records, rest };
}

async function openIfExists(path: string): Promise<FileHandle | undefined> {
  try {
    return await open(path, 'r');
  } catch (err: unknown) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

class ByteBudget {
  #left: number;
  constructor(limit: number | undefined) {
    this.#left = limit ?? Number.POSITIVE_INFINITY;
  }
  get exhausted(): boolean {
    return this.#left <= 0;
  }
  take(text: string): Buffer {
    const bytes = Buffer.from(text);
    const out = bytes.length <= this.#left ? bytes : bytes.subarray(0, this.#left);
    this.#left -= out.length;
    return out;
  }
}

/**
 * Yields the log's bytes as the options ask. Ends when the selection is written (no follow), the
 * byte limit is reached, the instance stopped and everything it wrote was read (follow), or
 * `signal` aborts.
 */
export async function* readContainerLog(
  log: ContainerLog,
  options: LogOptions,
  signal: AbortSignal,
): AsyncGenerator<Buffer> {
  const budget = new ByteBudget(options.limitBytes);
  let file = await openIfExists(log.path);
  let position = 0;
  let rest = '';
  const readMore = async (): Promise<LogRecord[]> => {
    file ??= await openIfExists(log.path);
    if (!file) return [];
    const { size } = await file.stat();
    if (size <= position) return [];
    const buf = Buffer.alloc(size - position);
    const { bytesRead } = await file.read(buf, 0, buf.length, position);
    position += bytesRead;
    const parsed = parseChunk(rest + buf.subarray(0, bytesRead).toString('utf8'));
    rest = parsed.rest;
    return parsed.records;
  };
  try {
    for (const record of selectRecords(await readMore(), options)) {
      yield budget.take(renderRecord(record, options.timestamps));
      if (budget.exhausted) return;
    }
    if (!options.follow) return;
    while (!signal.aborted) {
      // Read the running flag first: a stop seen now means everything written is already there.
      const running = log.isRunning();
      const records = await readMore();
      for (const record of records) {
        if (options.sinceMs !== undefined && record.timeMs < options.sinceMs) continue;
        yield budget.take(renderRecord(record, options.timestamps));
        if (budget.exhausted) return;
      }
      if (!running) return;
      if (records.length === 0) await new Promise((resolve) => setTimeout(resolve, FOLLOW_POLL_MS));
    }
  } finally {
    await file?.close();
  }
}
