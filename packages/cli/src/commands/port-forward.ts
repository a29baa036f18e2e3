// `agent-sandbox port-forward ID [LOCAL:]REMOTE...`: listens on 127.0.0.1:LOCAL (0 or omitted:
// the same port as REMOTE; `:REMOTE` picks a free one) and carries each connection to REMOTE in
// the sandbox's Pod through the API server's pods/portforward, until Ctrl-C.
import { createServer, type Server } from 'node:net';
import type { ClusterOptions } from '../cluster-options.ts';
import { CliError, FlagError } from '../errors.ts';
import { withStreams, type CommandIO } from '../io.ts';
import { forwardConnection } from '../pod-streams/port-forward-client.ts';
import { sandboxPod } from './sandbox-pod.ts';
import { sandboxBoundary } from './sdk-connection.ts';

export interface PortMapping {
  local: number;
  remote: number;
}

const PORT = /^\d{1,5}$/;

/** Pure: `8000`, `9000:8000`, `:8000` (a free local port) → mappings; FlagError otherwise. */
export function parsePortMappings(specs: readonly string[]): PortMapping[] {
  if (specs.length === 0)
    throw new FlagError('port-forward needs at least one [LOCAL:]REMOTE port');
  return specs.map((spec) => {
    const parts = spec.split(':');
    const [a, b] = parts.length === 1 ? [spec, spec] : parts;
    const local = a === '' ? 0 : Number(a);
    const remote = Number(b);
    const valid =
      parts.length <= 2 &&
      (a === '' || PORT.test(a ?? '')) &&
      PORT.test(b ?? '') &&
      local <= 65535 &&
      remote >= 1 &&
      remote <= 65535;
    if (!valid)
      throw new FlagError(
        `port "${spec}" must be REMOTE, LOCAL:REMOTE or :REMOTE with ports in 1-65535 (e.g. 8000 or 9000:8000)`,
      );
    return { local, remote };
  });
}

function listen(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(
        new CliError(
          'Failed',
          e.code === 'EADDRINUSE'
            ? `local port ${port} is in use; pick another (LOCAL:REMOTE, or :REMOTE for a free one)`
            : `cannot listen on 127.0.0.1:${port}: ${e.message}`,
        ),
      ),
    );
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

export function runPortForward(
  id: string,
  specs: string[],
  opts: ClusterOptions,
  io: CommandIO,
): Promise<number> {
  const mappings = parsePortMappings(specs);
  const full = withStreams(io);
  return sandboxBoundary(async () => {
    const pod = await sandboxPod(id, opts);
    const stop = full.stopSignal();
    const servers: Server[] = [];
    try {
      for (const m of mappings) {
        const server = await listen(m.local);
        servers.push(server);
        const { port } = server.address() as { port: number };
        io.stdout(`Forwarding from 127.0.0.1:${port} -> ${m.remote}\n`);
        server.on('connection', (socket) => {
          forwardConnection(pod.config, pod, m.remote, socket, (msg) =>
            io.stderr(`port-forward ${port} -> ${m.remote}: ${msg}\n`),
          ).catch((err: unknown) =>
            io.stderr(
              `port-forward ${port} -> ${m.remote}: ${err instanceof Error ? err.message : String(err)}\n`,
            ),
          );
        });
      }
      await new Promise<void>((resolve) => {
        if (stop.signal.aborted) return resolve();
        stop.signal.addEventListener('abort', () => resolve(), { once: true });
      });
      return 0;
    } finally {
      stop.dispose();
      for (const s of servers) s.close();
    }
  });
}
