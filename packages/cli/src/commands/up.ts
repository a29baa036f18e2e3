// `agent-sandbox up`: the embedded mode with the node agent, so Pods really run (as root, with
// runc; gVisor too where runsc works). Data dir: --data-dir, else $AGENT_SANDBOX_HOME, else the
// one `start` uses. Writes DIR/endpoints.json ({"apiServer", "kubeconfig", ...}) once serving.
import { writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { CommandIO } from '../io.ts';
import { defaultDataDir } from '../data-dir.ts';
import { exitCodeFor } from '../report-error.ts';
import { controllerLogger } from './controller-logger.ts';
import { apiServerOptions, serveEmbedded, type ServeRunOptions } from './serve-embedded.ts';
import type { StartOptions, StartRunOptions } from './start.ts';

export function upDataDir(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return flag ?? (env['AGENT_SANDBOX_HOME'] || defaultDataDir(env));
}

export async function runUp(
  opts: StartOptions,
  io: CommandIO,
  run: StartRunOptions = {},
): Promise<number> {
  const dataDir = upDataDir(opts.dataDir);
  io.stderr(
    'agent-sandbox up: embedded API server, controllers (with extensions) and the node agent (runc default, gVisor as RuntimeClass gvisor where runsc works; loopback-only pod network for now).\n',
  );
  const serve: ServeRunOptions = {
    ...(run.signal ? { signal: run.signal } : {}),
    onServing: async (api) => {
      const path = join(api.dataDir, 'endpoints.json');
      await writeFile(
        path,
        `${JSON.stringify({ apiServer: api.url, kubeconfig: api.kubeconfigPath }, null, 2)}\n`,
      );
      io.stdout(
        `endpoints: ${path}\nnode agent: node ${hostname()}, state in ${join(api.dataDir, 'node')}\n`,
      );
    },
  };
  try {
    return await serveEmbedded(
      {
        apiServer: apiServerOptions(dataDir, opts),
        controllerManager: {
          logger: controllerLogger({}, io),
          controllers: ['sandbox', 'sandboxclaim', 'sandboxwarmpool', 'sandboxtemplate'],
          extensions: true,
          ...(run.version !== undefined ? { version: run.version } : {}),
        },
        kubelet: { nodeName: hostname().toLowerCase(), dataDir: join(dataDir, 'node') },
      },
      io,
      serve,
    );
  } catch (err: unknown) {
    return exitCodeFor(err, io);
  }
}
