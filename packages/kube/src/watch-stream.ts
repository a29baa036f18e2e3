// Splits a watch response into events: one JSON object per line (semantics §4.1).
import type { KubeObject, Status } from '@agent-sandbox/kube-types';
import { apiErrorFromStatus, KubeError } from './errors.ts';
import type { WatchEvent } from './types.ts';

interface RawEvent {
  type?: string;
  object?: unknown;
}

export async function* readWatchStream<T extends KubeObject>(
  body: ReadableStream<Uint8Array>,
  context: string,
  signal?: AbortSignal,
): AsyncGenerator<WatchEvent<T>> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (cause: unknown) {
        if (signal?.aborted) return;
        throw new KubeError(`${context}: stream failed`, { cause, code: 'Network' });
      }
      if (chunk.done) return; // a clean end: the caller re-watches from its last resourceVersion
      buffer += decoder.decode(chunk.value, { stream: true });
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl).trim();
        buffer = buffer.slice(nl + 1);
        if (!line) continue;
        let ev: RawEvent;
        try {
          ev = JSON.parse(line) as RawEvent;
        } catch (cause: unknown) {
          throw new KubeError(`${context}: malformed event`, { cause, code: 'Network' });
        }
        if (ev.type === 'ERROR') throw apiErrorFromStatus(context, ev.object as Status);
        if (ev.type === 'BOOKMARK')
          yield { type: 'BOOKMARK', object: ev.object as WatchEvent<T>['object'] } as WatchEvent<T>;
        else if (ev.type === 'ADDED' || ev.type === 'MODIFIED' || ev.type === 'DELETED')
          yield { type: ev.type, object: ev.object as T };
      }
    }
  } finally {
    // Stop reading at once (also after an ERROR): never wait for the server to close (§4.3).
    await reader.cancel().catch(() => undefined);
  }
}
