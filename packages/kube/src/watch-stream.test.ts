import { describe, expect, it } from 'vitest';
import { isGone } from './errors.ts';
import { readWatchStream } from './watch-stream.ts';

/** A body that sends `lines` and then stays open forever, like a misbehaving server (§4.3). */
function openBody(lines: string[]): { body: ReadableStream<Uint8Array>; cancelled: () => boolean } {
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      for (const l of lines) c.enqueue(new TextEncoder().encode(l));
    },
    cancel() {
      cancelled = true;
    },
  });
  return { body, cancelled: () => cancelled };
}

const expired = JSON.stringify({
  type: 'ERROR',
  object: {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'too old resource version: 1 (200)',
    reason: 'Expired',
    code: 410,
  },
});

describe('readWatchStream', () => {
  it('throws on an in-stream 410 ERROR without waiting for the stream to end, and cancels it', async () => {
    const added = JSON.stringify({
      type: 'ADDED',
      object: { metadata: { name: 'a', resourceVersion: '5' } },
    });
    // split mid-line to check reassembly
    const { body, cancelled } = openBody([added.slice(0, 10), `${added.slice(10)}\n${expired}\n`]);
    const types: string[] = [];
    const run = (async () => {
      for await (const ev of readWatchStream(body, 'watch configmaps')) types.push(ev.type);
    })();
    await expect(run).rejects.toSatisfy(isGone);
    await expect(run).rejects.toThrow('watch configmaps: too old resource version: 1 (200)');
    expect(types).toEqual(['ADDED']);
    expect(cancelled()).toBe(true);
  });

  it('yields bookmarks and ignores blank lines; an abort ends quietly', async () => {
    const bookmark = JSON.stringify({
      type: 'BOOKMARK',
      object: { metadata: { resourceVersion: '9' } },
    });
    const { body } = openBody([`\n${bookmark}\n`]);
    const ac = new AbortController();
    const seen: string[] = [];
    for await (const ev of readWatchStream(body, 'w', ac.signal)) {
      seen.push(`${ev.type} ${ev.object.metadata.resourceVersion}`);
      ac.abort();
      break;
    }
    expect(seen).toEqual(['BOOKMARK 9']);
  });
});
