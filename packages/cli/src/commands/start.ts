// `agent-sandbox start` (what `npm start` runs): the embedded single-machine mode. It serves the
// embedded Kubernetes API (with our CRDs) from a per-user data dir and runs the controller
// manager against it in the same process (no leader election: one process owns the data dir);
// the node agent and router join it as they land.
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import type { CommandIO } from '../io.ts';
import { parsePort, processSignal, runApiserver, type ApiserverRunOptions } from './apiserver.ts';
import { runController } from './controller.ts';

/** `$XDG_DATA_HOME/agent-sandbox`, else `~/.local/share/agent-sandbox`. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env['XDG_DATA_HOME'] || join(homedir(), '.local', 'share');
  return join(base, 'agent-sandbox');
}

export interface StartOptions {
  dataDir?: string;
  port?: number;
}

export async function runStart(
  opts: StartOptions,
  io: CommandIO,
  run: ApiserverRunOptions = {},
): Promise<number> {
  io.stderr(
    'agent-sandbox start: embedded mode. Serving the Kubernetes API with the agent-sandbox CRDs and running the Sandbox, SandboxClaim, SandboxWarmPool and SandboxTemplate controllers;\n' +
      'the node agent and router are not part of the embedded mode yet, so Pods stay Pending (README.md, "Status").\n',
  );
  // One stop signal for the whole mode; the controllers stop before the API server closes.
  const stop = run.signal ? { signal: run.signal, dispose: () => undefined } : processSignal();
  const controllers = new AbortController();
  const serverStop = new AbortController();
  stop.signal.addEventListener('abort', () => controllers.abort(), { once: true });
  let controllerExit = 0;
  const onReady = async ({ kubeconfig }: { kubeconfig: string }): Promise<void> => {
    controllerExit = await runController(
      [
        '--kubeconfig',
        kubeconfig,
        '--leader-elect=false',
        '--metrics-bind-address=0',
        '--health-probe-bind-address=0',
        // The embedded server converts v1alpha1 in-process; no conversion webhook is needed.
        '--enable-webhook=false',
        // The extension controllers (claims, warm pools, templates) are on in the embedded mode.
        '--extensions',
      ],
      io,
      { signal: controllers.signal },
    );
    serverStop.abort();
  };
  try {
    const code = await runApiserver(
      {
        dataDir: opts.dataDir ?? defaultDataDir(),
        ...(opts.port !== undefined ? { port: opts.port } : {}),
      },
      io,
      { signal: serverStop.signal, onReady },
    );
    return code !== 0 ? code : controllerExit;
  } finally {
    stop.dispose();
  }
}

export function addStartCommand(
  program: Command,
  io: CommandIO,
  setExit: (code: number) => void,
): void {
  program
    .command('start')
    .description('run agent-sandbox on this machine (embedded mode); stop with Ctrl-C')
    .option('--data-dir <dir>', `where state lives (default: ${defaultDataDir()})`)
    .option(
      '--port <n>',
      'API server port; 0 picks a free one (default: 6443, or a free port if taken)',
      parsePort,
    )
    .action(async (opts: StartOptions) => setExit(await runStart(opts, io)));
}
