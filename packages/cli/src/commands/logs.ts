// `agent-sandbox logs ID [-f]`: the sandbox container's log through the API server's pods/log,
// streamed as it comes; -f follows until the container ends or Ctrl-C.
import type { ClusterOptions } from '../cluster-options.ts';
import { FlagError } from '../errors.ts';
import { withStreams, type CommandIO } from '../io.ts';
import { podPath, streamGet } from '../pod-streams/kube-transport.ts';
import { sandboxPod } from './sandbox-pod.ts';
import { sandboxBoundary } from './sdk-connection.ts';

export interface LogsFlags extends ClusterOptions {
  follow?: boolean;
  container?: string;
  tail?: string;
}

export function runLogs(id: string, opts: LogsFlags, io: CommandIO): Promise<number> {
  const tail = opts.tail === undefined ? undefined : Number(opts.tail);
  if (tail !== undefined && !(Number.isInteger(tail) && tail >= 0))
    throw new FlagError(`--tail "${opts.tail}" must be a whole number of lines ≥ 0`);
  const full = withStreams(io);
  return sandboxBoundary(async () => {
    const pod = await sandboxPod(id, opts);
    const query = new URLSearchParams({ container: opts.container ?? pod.container });
    if (opts.follow) query.set('follow', 'true');
    if (tail !== undefined) query.set('tailLines', String(tail));
    const stop = full.stopSignal();
    try {
      const body = await streamGet(pod.config, podPath(pod, 'log', query), stop.signal);
      await new Promise<void>((resolve, reject) => {
        body.on('data', (d: Buffer) => full.stdoutStream.write(d));
        body.on('end', resolve);
        body.on('error', (e) => (stop.signal.aborted ? resolve() : reject(e)));
        body.on('close', resolve);
      });
      return 0;
    } catch (err: unknown) {
      if (stop.signal.aborted) return 0;
      throw err;
    } finally {
      stop.dispose();
    }
  });
}
