// A relay in front of an API server for the merged watch's tests: it forwards every request and
// lets a test end, hold or break one namespace's watch stream at a moment it chooses (a watch that
// reached its timeoutSeconds, one whose events lag, one whose connection dropped), so what the
// merged watch does then is shown without waiting on any timer.
import { kubeConfigFromFile, type KubeConfig } from '@agent-sandbox/kube';
import { createServer, type ClientRequest, type ServerResponse } from 'node:http';
import { closeServer, listenWithKubeconfig, upstreamRequest } from './namespace-proxy.ts';

interface RelayedWatch {
  res: ServerResponse;
  out: ClientRequest;
  /** Chunks kept back while the stream is held. */
  held?: string[];
}

export interface WatchRelay {
  /** The relay as an upstream (no credentials: it adds the API server's). */
  config: KubeConfig;
  /** Resolves once a watch of namespace `ns` is open through the relay. */
  opened(ns: string): Promise<void>;
  /** Ends `ns`'s open watches cleanly, as the API server does at timeoutSeconds. */
  end(ns: string): void;
  /** Keeps `ns`'s events from here on back (a stream that lags). */
  hold(ns: string): void;
  /** Drops `ns`'s open watches' connections, the events held back with them. */
  drop(ns: string): void;
  close(): Promise<void>;
}

/** The namespace a watch path names, undefined for anything that is not a watch. */
function watchedNamespace(path: string): string | undefined {
  const url = new URL(path, 'http://relay');
  const watch = url.searchParams.get('watch');
  if (watch !== 'true' && watch !== '1') return undefined;
  return /\/namespaces\/([^/]+)\//.exec(url.pathname)?.[1];
}

export async function startWatchRelay(upstream: KubeConfig, dir: string): Promise<WatchRelay> {
  const watches = new Map<string, RelayedWatch[]>();
  const waiters: (() => void)[] = [];
  const server = createServer((req, res) => {
    const ns = watchedNamespace(req.url ?? '/');
    const w: Partial<RelayedWatch> = { res };
    w.out = upstreamRequest(upstream, req, req.url ?? '/', (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      res.flushHeaders();
      answer.setEncoding('utf8');
      answer.on('data', (d: string) => (w.held ? w.held.push(d) : res.write(d)));
      answer.on('end', () => res.end());
      if (ns === undefined) return;
      watches.set(ns, [...(watches.get(ns) ?? []), w as RelayedWatch]);
      for (const wake of waiters.splice(0)) wake();
    });
    res.on('close', () => w.out?.destroy());
    w.out.on('error', () => res.destroy());
    req.pipe(w.out);
  });
  const path = await listenWithKubeconfig(server, dir, 'watch-relay', 'default');
  const take = (ns: string): RelayedWatch[] => {
    const open = watches.get(ns) ?? [];
    watches.delete(ns);
    return open;
  };
  const opened = async (ns: string): Promise<void> => {
    while (!watches.get(ns)?.length) await new Promise<void>((r) => waiters.push(r));
  };
  return {
    config: kubeConfigFromFile(path),
    opened,
    end: (ns) => {
      for (const w of take(ns)) {
        w.out.destroy();
        w.res.end(w.held?.join('') ?? '');
      }
    },
    hold: (ns) => {
      for (const w of watches.get(ns) ?? []) w.held ??= [];
    },
    drop: (ns) => {
      for (const w of take(ns)) {
        w.out.destroy();
        w.res.destroy();
      }
    },
    close: () => closeServer(server),
  };
}
