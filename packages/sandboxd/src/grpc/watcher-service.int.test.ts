// watcher.v1.FileWatcherService/WatchDir against dataplane §13.3.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../testing/daemon.ts';
import { collect, ourClient } from '../testing/grpc-clients.ts';

interface Ev {
  type: number;
  path: string;
  old_path: string;
  error: string;
}
let d: TestDaemon;
let watcher: ReturnType<typeof ourClient>;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  d = await startTestDaemon({ restPort: -1, legacyPort: -1 });
  watcher = ourClient(d.grpcAddress!, 'watcher.v1.FileWatcherService');
  await mkdir(path.join(d.root, 'w/sub'), { recursive: true });
  await writeFile(path.join(d.root, 'file.txt'), 'x');
});
afterAll(async () => {
  watcher.close();
  await d.stop();
});

function watch(p: string, recursive: boolean) {
  const stream = watcher.WatchDir({ path: p, recursive }) as grpc.ClientReadableStream<Ev>;
  const events: Ev[] = [];
  stream.on('data', (e: Ev) => events.push(e));
  return { stream, events, done: collect(stream) };
}

describe('WatchDir', () => {
  it('reports create, write and remove with root-relative paths, recursively', async () => {
    const w = watch('w', true);
    await sleep(200);
    await writeFile(path.join(d.root, 'w/a.txt'), '1');
    await writeFile(path.join(d.root, 'w/sub/b.txt'), '2');
    await mkdir(path.join(d.root, 'w/new'));
    await sleep(150);
    await writeFile(path.join(d.root, 'w/new/c.txt'), '3');
    await rm(path.join(d.root, 'w/a.txt'));
    await sleep(700);
    w.stream.cancel();
    await w.done;
    const seen = w.events.map((e) => `${e.type}:${e.path}`);
    expect(seen).toContain('1:w/a.txt');
    expect(seen).toContain('1:w/sub/b.txt');
    expect(seen).toContain('1:w/new');
    expect(seen).toContain('1:w/new/c.txt');
    expect(seen).toContain('3:w/a.txt');
    expect(seen.some((s) => s.startsWith('2:'))).toBe(true);
  });
  it('non-recursive watches see only direct entries; "" and "." mean the root', async () => {
    const w = watch('', false);
    await sleep(200);
    await writeFile(path.join(d.root, 'top.txt'), '1');
    await writeFile(path.join(d.root, 'w/sub/deep.txt'), '1');
    await sleep(600);
    w.stream.cancel();
    await w.done;
    expect(w.events.map((e) => e.path)).toContain('top.txt');
    expect(w.events.map((e) => e.path)).not.toContain('w/sub/deep.txt');
  });
  it('ends with an ERROR event when the watched directory is removed', async () => {
    await mkdir(path.join(d.root, 'doomed'));
    const w = watch('doomed', false);
    await sleep(200);
    await rm(path.join(d.root, 'doomed'), { recursive: true });
    const { error } = await w.done;
    expect(error).toBeUndefined();
    expect(w.events.at(-1)).toEqual({
      type: 6,
      path: '',
      old_path: '',
      error: 'watched directory was removed or renamed',
    });
  });
  it.each([
    [
      '..',
      grpc.status.PERMISSION_DENIED,
      'watch path: path traversal outside sandbox root is forbidden',
    ],
    ['missing', grpc.status.NOT_FOUND, 'watch path does not exist: missing'],
    ['file.txt', grpc.status.INVALID_ARGUMENT, 'watch path is not a directory: file.txt'],
  ])('refuses %s', async (p, code, details) => {
    const { error } = await watch(p, false).done;
    expect(error).toMatchObject({ code, details });
  });
  it('sends response headers once the watch is in place, before any event', async () => {
    const own = ourClient(d.grpcAddress!, 'watcher.v1.FileWatcherService');
    const stream = own.WatchDir({ path: 'w', recursive: false }) as grpc.ClientReadableStream<Ev>;
    const events: Ev[] = [];
    stream.on('data', (e: Ev) => events.push(e));
    const done = collect(stream);
    const headers = await new Promise<grpc.Metadata>((resolve, reject) => {
      stream.once('metadata', resolve);
      setTimeout(() => reject(new Error('no response headers within 2 s of WatchDir')), 2000);
    });
    expect(headers).toBeInstanceOf(grpc.Metadata);
    expect(events).toEqual([]);
    stream.cancel();
    await done;
    own.close();
    await sleep(100);
  });

  it('allows at most 64 concurrent watches', async () => {
    const ws = Array.from({ length: 64 }, () => watch('w', false));
    await sleep(300);
    const { error } = await watch('w', false).done;
    expect(error).toMatchObject({
      code: grpc.status.RESOURCE_EXHAUSTED,
      details: 'too many concurrent file watches (limit 64)',
    });
    ws.forEach((w) => w.stream.cancel());
    await Promise.all(ws.map((w) => w.done));
    await sleep(100);
    const again = watch('w', false);
    await sleep(200);
    again.stream.cancel();
    expect((await again.done).error?.code).toBe(grpc.status.CANCELLED);
  });
});
