// The client's real transport (transport.ts) with chosen watches held back: a watch request
// that matches is not sent until release(), as when a watch stream reaches a busy API server
// late. Everything else goes out at once. For tests of code that must not depend on when a
// watch delivers (KubeClientOptions.fetch).
import type { KubeConfig } from '../kubeconfig.ts';
import { createTransport, DEFAULT_TRANSPORT_OPTIONS, type FetchLike } from '../transport.ts';

export interface HeldWatches {
  /** For KubeClientOptions.fetch. */
  readonly fetch: FetchLike;
  /** Matching watch requests held so far (sent or not). */
  readonly held: number;
  /** Sends every held watch, and from now on the matching ones too. */
  release(): void;
  close(): Promise<void>;
}

/** Holds the watches whose URL `match` accepts (URL query `watch=true`), until release(). */
export function holdWatches(config: KubeConfig, match: (url: URL) => boolean): HeldWatches {
  const transport = createTransport(config, DEFAULT_TRANSPORT_OPTIONS);
  let held = 0;
  let released = false;
  let open: () => void = () => undefined;
  const gate = new Promise<void>((r) => (open = r));
  const fetch: FetchLike = async (url, init) => {
    const u = new URL(url);
    if (u.searchParams.get('watch') !== 'true') return transport.request(url, init);
    if (!released && match(u)) {
      held++;
      await Promise.race([
        gate,
        new Promise<void>((_r, reject) =>
          init.signal.addEventListener('abort', () => reject(init.signal.reason as Error), {
            once: true,
          }),
        ),
      ]);
    }
    return transport.watch(url, init);
  };
  return {
    fetch,
    get held() {
      return held;
    },
    release: () => {
      released = true;
      open();
    },
    close: () => transport.close(),
  };
}
