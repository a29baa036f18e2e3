// `agent-sandbox up`: the embedded mode with the node agent, so Pods really run (as root, with
// runc; gVisor too where runsc works), on the bridge Pod network with NetworkPolicy, with
// kubectl exec/attach/port-forward/logs through the API server. Data dir: --data-dir, else
// $AGENT_SANDBOX_HOME, else the one `start` uses. Writes DIR/endpoints.json
// ({"apiServer", "kubeconfig", ...}) once serving and prints what runs where.
import type { NodeAgentEvent } from '@agent-sandbox/local';
import { readFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { withStreams, type CommandIO } from '../io.ts';
import { defaultDataDir } from '../data-dir.ts';
import { exitCodeFor } from '../report-error.ts';
import { ROUTER_NAMESPACE, ROUTER_SERVICE, ROUTER_SERVICE_PORT } from '@agent-sandbox/local';
import { fileLogger } from './controller-logger.ts';
import { apiServerOptions, serveEmbedded, type ServeRunOptions } from './serve-embedded.ts';
import type { StartOptions, StartRunOptions } from './start.ts';
import { installDemo, prepareDemo } from '../start/demo.ts';

export interface UpOptions extends StartOptions {
  /** --pod-cidr */
  podCidr?: string;
  /** --bridge */
  bridge?: string;
  /** npm start: machine setup, demo image, demo template and warm pool (start/demo.ts). */
  demo?: boolean;
  /** --allow-host-path */
  allowHostPath?: boolean;
}

export const HOST_PATH_WARNING =
  'WARNING: --allow-host-path: Pods may mount directories of this host (hostPath volumes); a sandbox with one can read and change them, so it is NOT isolated from this machine. Namespaces still need Pod Security privileged to admit such Pods.\n';

export function upDataDir(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return flag ?? (env['AGENT_SANDBOX_HOME'] || defaultDataDir(env));
}

/** The node agent's part of "what runs where", as lines for the terminal. */
export function describeNodeEvent(event: NodeAgentEvent): { stream: 'out' | 'err'; text: string } {
  switch (event.type) {
    case 'network':
      return event.degraded === undefined
        ? {
            stream: 'out',
            text: `pod network: ${event.mode}, NetworkPolicy enforced${event.nameserver ? `, cluster DNS on ${event.nameserver}:53` : ''}\n`,
          }
        : {
            stream: 'err',
            text: `WARNING: pod network degraded to ${event.mode}: ${event.degraded}\n`,
          };
    case 'runtimes':
      return { stream: 'out', text: `runtimes: ${event.handlers.join(', ')}\n` };
    case 'streaming':
      return {
        stream: 'out',
        text: `node streaming (exec, attach, port-forward, logs): ${event.url}\n`,
      };
    case 'policy-sync-failed':
    case 'volume-sync-failed':
      return {
        stream: 'err',
        text: `${event.type === 'policy-sync-failed' ? 'NetworkPolicy' : 'PersistentVolume'} sync failed (retrying): ${event.error instanceof Error ? event.error.message : String(event.error)}\n`,
      };
  }
}

/** The host's first nameserver (/etc/resolv.conf), for cluster DNS to relay other names to. */
function hostResolver(path = '/etc/resolv.conf'): { dnsUpstream?: string } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return {};
  }
  const ns = /^\s*nameserver\s+(\d+\.\d+\.\d+\.\d+)\s*$/m.exec(text)?.[1];
  return ns ? { dnsUpstream: ns } : {};
}

export async function runUp(
  opts: UpOptions,
  io: CommandIO,
  run: StartRunOptions = {},
): Promise<number> {
  const dataDir = upDataDir(opts.dataDir);
  const nodeDir = join(dataDir, 'node');
  const node = hostname().toLowerCase();
  io.stderr(
    'agent-sandbox up: embedded API server, controllers (with extensions) and the node agent (runc default, gVisor as RuntimeClass gvisor where runsc works, bubblewrap as RuntimeClass bubblewrap and the default where runc cannot run).\n',
  );
  if (opts.allowHostPath) io.stderr(HOST_PATH_WARNING);
  let demoImage: string | undefined;
  try {
    if (opts.demo) demoImage = (await prepareDemo({ dataDir, report: line(io) })).image;
  } catch (err: unknown) {
    return exitCodeFor(err, io);
  }
  const logs = fileLogger(dataDir, io);
  const logger = logs.logger.child({ logger: 'controller-manager' });
  const routerLog = logs.logger.child({ logger: 'router' });
  const stop = run.signal ? undefined : withStreams(io).stopSignal();
  const signal = run.signal ?? stop?.signal;
  const serve: ServeRunOptions = {
    ...(signal ? { signal } : {}),
    onServing: async (api, endpoints) => {
      const path = join(api.dataDir, 'endpoints.json');
      // Written whole, then renamed: a reader polling for the file never sees half of it.
      await writeFile(
        `${path}.tmp`,
        `${JSON.stringify({ apiServer: api.url, kubeconfig: api.kubeconfigPath, ...endpoints }, null, 2)}\n`,
      );
      await rename(`${path}.tmp`, path);
      io.stdout(
        `endpoints: ${path}\nlogs: ${logs.path} (warnings and errors are shown here too)\nnode agent: node ${node}, state in ${nodeDir}\n` +
          (endpoints['router']
            ? `router: ${endpoints['router']} (also: kubectl port-forward svc/${ROUTER_SERVICE} ${ROUTER_SERVICE_PORT} -n ${ROUTER_NAMESPACE})\n`
            : ''),
      );
      if (demoImage) startDemo(api.kubeconfigPath, demoImage, io, signal);
    },
  };
  try {
    return await serveEmbedded(
      {
        apiServer: apiServerOptions(dataDir, opts),
        controllerManager: {
          logger,
          controllers: ['sandbox', 'sandboxclaim', 'sandboxwarmpool', 'sandboxtemplate'],
          extensions: true,
          ...(run.version !== undefined ? { version: run.version } : {}),
        },
        kubelet: {
          nodeName: node,
          dataDir: nodeDir,
          log: logs.logger.child({ logger: 'kubelet' }),
          ...(opts.podCidr !== undefined ? { podCidr: opts.podCidr } : {}),
          ...(opts.bridge !== undefined ? { bridge: opts.bridge } : {}),
          ...(opts.allowHostPath ? { allowHostPath: true } : {}),
          ...hostResolver(),
          onEvent: (event) => {
            const line = describeNodeEvent(event);
            if (line.stream === 'out') io.stdout(line.text);
            else io.stderr(line.text);
          },
        },
        // `<port>-<sandbox>.<namespace>.localhost` resolves to loopback in browsers (RFC 6761).
        router: {
          nodeName: node,
          sandboxDomain: 'localhost',
          log: (msg, fields) => routerLog.error(fields, msg),
        },
      },
      io,
      serve,
    );
  } catch (err: unknown) {
    return exitCodeFor(err, io);
  } finally {
    stop?.dispose();
    logs.close();
  }
}

const line =
  (io: CommandIO) =>
  (text: string): void =>
    io.stderr(`${text}\n`);

/** Installs the demo in the background: serving goes on while the pool warms (or fails). */
function startDemo(
  kubeconfigPath: string,
  image: string,
  io: CommandIO,
  signal: AbortSignal | undefined,
): void {
  installDemo(kubeconfigPath, image, { report: line(io), ...(signal ? { signal } : {}) }).catch(
    (err: unknown) => {
      if (signal?.aborted) return;
      io.stderr(`demo: ${err instanceof Error ? err.message : String(err)}\n`);
    },
  );
}
