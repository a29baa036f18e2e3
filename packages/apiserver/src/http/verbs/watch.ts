// Watch streams (semantics doc §4): newline-delimited JSON events over a chunked 200 response,
// synthetic ADDED events for a watch without resourceVersion, selector membership changes,
// bookmarks, timeoutSeconds, and the in-stream 410 ERROR after compaction.
import { keyPrefix, objectKey } from '../../resource-store.ts';
import type { KubeObject } from '../../objects.ts';
import { groupVersion } from '../../resources/resource.ts';
import type { Status } from '@agent-sandbox/kube-types';
import { expired, internalError } from '../../errors.ts';
import { StorageError } from '../../storage/errors.ts';
import type { WatchEvent } from '../../storage/store.ts';
import type { Call, ServerParts } from '../context.ts';
import { isTrueParam } from '../options.ts';
import { listFilter } from './filter.ts';
import { listOptions } from '../list-options.ts';
import { requestedTable, tableForEvent } from '../tables.ts';

type EventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** How often a watch with allowWatchBookmarks sends a BOOKMARK (the real server: about a minute). */
export const BOOKMARK_INTERVAL_MS = 60_000;

function tooOld(requested: number, oldest: number): Status {
  return expired(`too old resource version: ${requested} (${oldest})`).status;
}

/** A watch whose timeout passed before it began: kube's one in-stream ERROR, then the end. */
function deadlineExceeded(): Response {
  const status = internalError(new Error('context deadline exceeded')).status;
  status.message = 'context deadline exceeded';
  delete status.details;
  return new Response(`${JSON.stringify({ type: 'ERROR', object: status })}\n`, {
    status: 200,
    headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' },
  });
}

export function watch(parts: ServerParts, call: Call): Response {
  const { r, req, url } = call;
  const filter = listFilter(r, url, call.version);
  const singleKey = req.name !== undefined ? objectKey(r, req.namespace, req.name) : undefined;
  const prefix = singleKey ?? keyPrefix(r, req.namespace);
  const options = listOptions(url, true);
  const rvParam = options.resourceVersion;
  const bookmarks = isTrueParam(url.searchParams.get('allowWatchBookmarks'));
  const sendInitial = isTrueParam(url.searchParams.get('sendInitialEvents'));
  const timeoutSeconds = options.timeoutSeconds ?? 0;
  if (timeoutSeconds < 0) return deadlineExceeded();
  const encoder = new TextEncoder();
  // `kubectl get --watch` asks for Table events (semantics doc §10).
  const table = requestedTable(call.http);
  const store = parts.store;

  let cleanup = (): void => {};
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      let closed = false;
      let lastRevision = 0;
      let firstRow = true;
      const send = (type: EventType, object: unknown, json?: string): void => {
        if (closed) return;
        if (table && (type === 'ADDED' || type === 'MODIFIED' || type === 'DELETED')) {
          object = tableForEvent(parts, call, object as KubeObject, table, firstRow);
          firstRow = false;
          json = undefined;
        }
        const line =
          json === undefined
            ? JSON.stringify({ type, object })
            : `{"type":"${type}","object":${json}}`;
        controller.enqueue(encoder.encode(`${line}\n`));
      };
      const close = (): void => {
        if (closed) return;
        closed = true;
        cleanup();
        try {
          controller.close();
        } catch {
          // The consumer already cancelled the stream; nothing left to close.
        }
      };
      const bookmark = (annotations?: Record<string, string>): void => {
        const metadata: Record<string, unknown> = { resourceVersion: String(lastRevision) };
        if (annotations) metadata['annotations'] = annotations;
        send('BOOKMARK', {
          kind: r.kind,
          apiVersion: groupVersion(r.group, call.version),
          metadata,
        });
      };

      let fromRevision: number;
      const initial = rvParam === '' || rvParam === '0' || sendInitial;
      if (initial) {
        const page = store.list(prefix);
        fromRevision = page.revision;
        for (const stored of page.items) {
          if (singleKey && stored.key !== singleKey) continue;
          const obj = parts.codec.decode(r, stored, call.version);
          if (filter(obj)) send('ADDED', obj);
        }
        lastRevision = fromRevision;
        if (sendInitial && bookmarks) bookmark({ 'k8s.io/initial-events-end': 'true' });
      } else {
        fromRevision = Number(options.revision ?? 0n);
        lastRevision = fromRevision;
      }

      const decode = (value: string, revision: number): KubeObject =>
        parts.codec.decode(r, { key: '', revision, createRevision: 0, value }, call.version);
      const onEvent = (e: WatchEvent): void => {
        if (singleKey && e.key !== singleKey) return;
        lastRevision = e.revision;
        const shared = parts.codec.decodeEvent(r, e.key, e.value, e.revision, call.version);
        const obj = shared.object;
        const matches = filter(obj);
        if (e.type === 'DELETED') {
          if (matches) send('DELETED', obj, shared.json);
          return;
        }
        const before = e.prevValue === undefined ? false : filter(decode(e.prevValue, e.revision));
        if (matches && (e.type === 'ADDED' || !before)) send('ADDED', obj, shared.json);
        else if (matches) send('MODIFIED', obj, shared.json);
        else if (before) send('DELETED', decode(e.prevValue as string, e.revision));
      };
      let handle;
      try {
        handle = store.watch(prefix, fromRevision, onEvent, {
          onError: (err) => {
            if (err instanceof StorageError && err.code === 'Compacted')
              send('ERROR', tooOld(fromRevision, store.compactRevision));
            close();
          },
        });
      } catch (err: unknown) {
        if (err instanceof StorageError && err.code === 'Compacted') {
          send('ERROR', tooOld(fromRevision, store.compactRevision));
          close();
          return;
        }
        throw err;
      }
      const timers: NodeJS.Timeout[] = [];
      if (bookmarks) timers.push(setInterval(() => bookmark(), BOOKMARK_INTERVAL_MS));
      if (timeoutSeconds > 0) timers.push(setTimeout(close, timeoutSeconds * 1000));
      const onAbort = (): void => close();
      call.signal.addEventListener('abort', onAbort);
      cleanup = () => {
        handle.cancel();
        timers.forEach((t) => clearTimeout(t));
        call.signal.removeEventListener('abort', onAbort);
      };
    },
    cancel() {
      cleanup();
    },
  });
  return new Response(stream, {
    status: 200,
    headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' },
  });
}
