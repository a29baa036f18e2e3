// A watch stream that says when it ends (the shared bench client does not), so the tracker can
// reopen it from the last resourceVersion it saw instead of relisting: under load kube-apiserver
// may close a watch, and a full list of 10,000 Sandboxes can outlast its 60 s request timeout.
import { KubeConfig } from '@kubernetes/client-node';
import { readFileSync } from 'node:fs';
import { Agent, request, type RequestOptions } from 'node:https';
import { performance } from 'node:perf_hooks';

export interface RawWatchEvent {
  type: string;
  object: unknown;
}

export interface WatchHandle {
  close(): void;
}

export interface Watcher {
  /**
   * GETs `path` (which carries `watch=1` and a resourceVersion), calls `onEvent` per event with
   * its arrival time, and `onEnd` once when the stream closes or fails (not after `close()`).
   */
  watch(
    path: string,
    onEvent: (event: RawWatchEvent, at: number) => void,
    onEnd: (err?: Error) => void,
  ): WatchHandle;
  destroy(): void;
}

export function watcherFor(kubeconfigPath: string): Watcher {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  const cluster = kc.getCurrentCluster();
  const user = kc.getCurrentUser();
  if (!cluster) throw new Error(`${kubeconfigPath} has no current cluster`);
  const read = (file?: string, data?: string): Buffer | undefined =>
    file ? readFileSync(file) : data ? Buffer.from(data, 'base64') : undefined;
  const base = new URL(cluster.server);
  if (base.protocol !== 'https:') throw new Error(`${cluster.server}: expected https`);
  const agent = new Agent({
    keepAlive: false,
    ca: read(cluster.caFile, cluster.caData),
    cert: read(user?.certFile, user?.certData),
    key: read(user?.keyFile, user?.keyData),
    rejectUnauthorized: !cluster.skipTLSVerify,
  });
  return {
    watch(path, onEvent, onEnd) {
      let closed = false;
      let ended = false;
      const end = (err?: Error): void => {
        if (closed || ended) return;
        ended = true;
        onEnd(err);
      };
      const options: RequestOptions = {
        method: 'GET',
        agent,
        headers: { Accept: 'application/json', 'User-Agent': 'agent-sandbox-bench/1.0' },
      };
      const req = request(new URL(path, base), options, (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          end(new Error(`watch ${path}: HTTP ${res.statusCode}`));
          return;
        }
        let buffer = '';
        res.on('data', (chunk: Buffer) => {
          const at = performance.now();
          buffer += chunk.toString('utf8');
          for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
            const line = buffer.slice(0, nl);
            buffer = buffer.slice(nl + 1);
            if (line.trim() !== '') onEvent(JSON.parse(line) as RawWatchEvent, at);
          }
        });
        res.on('end', () => end());
        res.on('close', () => end());
        res.on('error', (err) => end(err));
      });
      req.on('error', (err) => end(err));
      req.end();
      return {
        close() {
          closed = true;
          req.destroy();
        },
      };
    },
    destroy() {
      agent.destroy();
    },
  };
}
