// watcher.v1.FileWatcherService/WatchDir (dataplane §13.3): events for a directory (and its
// subdirectories when recursive), paths relative to the root, batched for 250 ms, at most 64
// watches at once; a removed watched directory ends the stream with one ERROR event.
import { watch, type FSWatcher } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { Metadata, type ServerWritableStream } from '@grpc/grpc-js';
import {
  FileEventType,
  WATCH_BATCH_MS,
  WATCH_LIMIT,
  type FileEvent,
  type WatchDirRequest,
} from '@agent-sandbox/protocol';
import { SandboxdError, sandboxdError } from '../errors.ts';
import { isWithin, sanitizePath } from '../paths.ts';
import type { GuardedService } from './boundary.ts';

async function watchedDir(root: string, userPath: string): Promise<string> {
  const p = userPath === '' || userPath === '.' ? '' : userPath;
  let resolved: string;
  try {
    resolved = await sanitizePath(root, p);
  } catch (err: unknown) {
    if (err instanceof SandboxdError && err.code === 'PathEscapes')
      throw sandboxdError('PermissionDenied', `watch path: ${err.message}`, err);
    throw sandboxdError('Internal', `watch path: ${String(err)}`, err);
  }
  const st = await stat(resolved).catch(() => undefined);
  if (!st) throw sandboxdError('NotFound', `watch path does not exist: ${userPath}`);
  if (!st.isDirectory())
    throw sandboxdError('InvalidArgument', `watch path is not a directory: ${userPath}`);
  return resolved;
}

class DirWatch {
  private readonly watchers = new Map<string, FSWatcher>();
  private batch: FileEvent[] = [];
  private timer: NodeJS.Timeout | undefined;
  private ended = false;
  constructor(
    private readonly root: string,
    private readonly top: string,
    private readonly recursive: boolean,
    private readonly send: (events: FileEvent[]) => void,
    private readonly finish: () => void,
  ) {}

  async add(dir: string): Promise<void> {
    if (this.ended || this.watchers.has(dir)) return;
    const w = watch(dir, { persistent: false }, (kind, name) => {
      if (name !== null) void this.onEvent(dir, kind, name.toString());
    });
    w.on('error', () =>
      this.fail(dir === this.top ? 'watched directory was removed or renamed' : undefined, dir),
    );
    this.watchers.set(dir, w);
    if (!this.recursive) return;
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const e of entries) if (e.isDirectory()) await this.add(path.join(dir, e.name));
  }

  private async onEvent(dir: string, kind: string, name: string): Promise<void> {
    const full = path.join(dir, name);
    const st = await stat(full).catch(() => undefined);
    let type: number = FileEventType.WRITE;
    if (kind === 'rename') type = st ? FileEventType.CREATE : FileEventType.REMOVE;
    if (!st && this.watchers.has(full)) {
      this.watchers.get(full)?.close();
      this.watchers.delete(full);
    }
    if (type === FileEventType.CREATE && st?.isDirectory() && this.recursive) await this.add(full);
    if (!st && full === this.top)
      return this.fail('watched directory was removed or renamed', full);
    if (!isWithin(this.top, full) || !isWithin(this.root, full)) return;
    this.queue({
      type,
      path: path.relative(this.root, full).split(path.sep).join('/'),
      old_path: '',
      error: '',
    });
  }

  private queue(e: FileEvent): void {
    this.batch.push(e);
    this.timer ??= setTimeout(() => this.flush(), WATCH_BATCH_MS);
  }

  private flush(): void {
    this.timer = undefined;
    const events = this.batch;
    this.batch = [];
    if (events.length > 0 && !this.ended) this.send(events);
  }

  /** Ends with a final ERROR event when `reason` is given (the watched dir itself is gone). */
  fail(reason: string | undefined, dir: string): void {
    if (this.ended) return;
    if (reason === undefined) {
      this.watchers.get(dir)?.close();
      this.watchers.delete(dir);
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.flush();
    this.send([{ type: FileEventType.ERROR, path: '', old_path: '', error: reason }]);
    this.close();
    this.finish();
  }

  /** Checks the watched directory still exists (inotify on a removed dir may stay silent). */
  async check(): Promise<void> {
    if (this.ended || this.top === this.root) return;
    const st = await stat(this.top).catch(() => undefined);
    if (!st?.isDirectory()) this.fail('watched directory was removed or renamed', this.top);
  }

  close(): void {
    this.ended = true;
    if (this.timer) clearTimeout(this.timer);
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
  }
}

export function watcherService(root: string): GuardedService {
  let active = 0;
  return {
    WatchDir: async (call: ServerWritableStream<WatchDirRequest, FileEvent>) => {
      if (active >= WATCH_LIMIT)
        throw sandboxdError(
          'ResourceExhausted',
          `too many concurrent file watches (limit ${WATCH_LIMIT})`,
        );
      active++;
      let released = false;
      const release = () => {
        if (!released) active--;
        released = true;
      };
      let dir: string;
      try {
        dir = await watchedDir(root, call.request.path);
      } catch (err: unknown) {
        release();
        throw err;
      }
      const w = new DirWatch(
        root,
        dir,
        call.request.recursive,
        (events) => events.forEach((e) => call.write(e)),
        () => {
          release();
          clearInterval(poll);
          call.end();
        },
      );
      const poll = setInterval(() => void w.check(), 500);
      call.on('cancelled', () => {
        clearInterval(poll);
        w.close();
        release();
      });
      await w.add(dir);
      // Response headers now, not with the first event: a client waiting for the stream to
      // open (and every proxy between) knows the watch is in place.
      call.sendMetadata(new Metadata());
    },
  };
}
